package datasets

import (
	"math"
	"testing"

	"github.com/prism-eval/prism/model"
)

func TestDemo(t *testing.T) {
	d := Demo()
	if d.Name != "demo" || d.Format != FormatDemo || d.Task != model.TaskNewsSummary || d.Metric != model.MetricSpearman {
		t.Errorf("name %q format %q task %q metric %q", d.Name, d.Format, d.Task, d.Metric)
	}
	if len(d.Contexts) != 12 || d.NumCandidates() != 60 {
		t.Fatalf("%d contexts, %d candidates; want 12 × 5", len(d.Contexts), d.NumCandidates())
	}
	if !equalStrings(d.Criteria, SummEvalCriteria) {
		t.Errorf("criteria %v", d.Criteria)
	}
	for _, c := range d.Contexts {
		if len(c.Source) < 300 {
			t.Errorf("%s: article of %d bytes", c.ID, len(c.Source))
		}
		byStyle := map[string]model.Candidate{}
		for _, x := range c.Candidates {
			// Target = mean of the four criteria, each a multiple of 1/3 in [1, 5].
			sum := 0.0
			for _, k := range SummEvalCriteria {
				v, ok := x.Scores[k]
				if !ok || v < 1 || v > 5 || math.Abs(v*3-math.Round(v*3)) > 1e-9 {
					t.Errorf("%s/%s: %s = %v", c.ID, x.ID, k, v)
				}
				sum += v
			}
			if !near(x.Human, sum/4) {
				t.Errorf("%s/%s: human %v, want mean %v", c.ID, x.ID, x.Human, sum/4)
			}
			byStyle[x.Extra["style"]] = x
		}
		if len(byStyle) != 5 {
			t.Fatalf("%s: styles %v", c.ID, byStyle)
		}
		// Visibly different quality: in every context the faithful concise
		// summary is rated best and the invented facts score worst on
		// consistency.
		best := byStyle["faithful and concise"]
		for s, x := range byStyle {
			if x.ID != best.ID && x.Human >= best.Human {
				t.Errorf("%s: %q (%v) not below the concise summary (%v)", c.ID, s, x.Human, best.Human)
			}
		}
		inv := byStyle["fluent, with invented or wrong facts"]
		for s, x := range byStyle {
			if x.ID != inv.ID && x.Scores["consistency"] <= inv.Scores["consistency"] {
				t.Errorf("%s: %q consistency not above the invented summary's", c.ID, s)
			}
		}
		if lead := byStyle["the article's first two sentences copied"]; len(lead.Text) < 20 || c.Source[:len(lead.Text)] != lead.Text {
			t.Errorf("%s: lead summary is not the article's opening", c.ID)
		}
	}
}

func TestDemoIsFreshCopy(t *testing.T) {
	a := Demo()
	a.Contexts[0].Candidates[0].Scores["coherence"] = -1
	a.Contexts[0].Candidates[0].Extra["style"] = "changed"
	a.Criteria[0] = "changed"
	b := Demo()
	if b.Contexts[0].Candidates[0].Scores["coherence"] == -1 || b.Contexts[0].Candidates[0].Extra["style"] == "changed" || b.Criteria[0] == "changed" {
		t.Error("Demo shares state between calls")
	}
}
