package calib

import (
	"context"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/shareddata"
)

// summevalLabels reads the real SummEval expert means (../shared/data)
// minimally: target = mean of the four criteria (docs/protocol.md §10).
func summevalLabels(t *testing.T) (labels []model.Label, crit map[[2]string][4]float64) {
	t.Helper()
	raw, err := os.ReadFile(shareddata.Path(t, "summeval/data.json"))
	if err != nil {
		t.Fatal(err)
	}
	var docs map[string]struct {
		SysSumms map[string]struct {
			Scores map[string]float64 `json:"scores"`
		} `json:"sys_summs"`
	}
	if err := json.Unmarshal(raw, &docs); err != nil {
		t.Fatal(err)
	}
	crit = map[[2]string][4]float64{}
	for _, doc := range slices.Sorted(maps.Keys(docs)) {
		for sys, s := range docs[doc].SysSumms {
			c := [4]float64{s.Scores["coherence"], s.Scores["consistency"], s.Scores["fluency"], s.Scores["relevance"]}
			crit[[2]string{doc, sys}] = c
			labels = append(labels, model.Label{Context: doc, Candidate: sys, Human: (c[0] + c[1] + c[2] + c[3]) / 4})
		}
	}
	slices.SortFunc(labels, func(a, b model.Label) int {
		if a.Context != b.Context {
			return strings.Compare(a.Context, b.Context)
		}
		return strings.Compare(a.Candidate, b.Candidate)
	})
	return labels, crit
}

// TestSummEvalSynthetic runs the whole protocol on the real SummEval labels
// with a synthetic judge that overweights fluency and underweights
// coherence and relevance; each attribute probe moves the score with its
// own criterion, and two noise attributes move it at random. PRISM must
// beat Vanilla with a paired interval above 0, and the profiles must point
// the right way: subtract fluency (a > 0), add coherence (a < 0).
func TestSummEvalSynthetic(t *testing.T) {
	labels, crit := summevalLabels(t)
	rng := rand.New(rand.NewPCG(2024, 1))
	names := []string{"coherence", "consistency", "fluency", "relevance"}
	judgeW := [4]float64{0.1, 0.3, 1.0, 0.1} // the humans weight each criterion 0.25
	var rows []model.ScoreRow
	for _, l := range labels {
		c := crit[[2]string{l.Context, l.Candidate}]
		s0 := 0.0
		for k := range c {
			s0 += judgeW[k] * c[k]
		}
		s0 += 0.4 * rng.NormFloat64()
		add := func(probe string, v float64) {
			rows = append(rows, model.ScoreRow{Context: l.Context, Candidate: l.Candidate, Probe: probe, Score: v})
		}
		add("baseline", s0)
		for k, n := range names {
			add(n+":+", s0+0.3+0.4*(c[k]-3)+0.15*rng.NormFloat64())
			add(n+":-", s0-0.1-0.3*(c[k]-3)+0.15*rng.NormFloat64())
		}
		for _, n := range []string{"noise1", "noise2"} {
			add(n+":+", s0+0.3*rng.NormFloat64())
			add(n+":-", s0+0.3*rng.NormFloat64())
		}
	}
	r, warnings, err := Fit(context.Background(), rows, labels, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	if r.NContexts != 100 || r.NCandidates != 1600 || len(r.Columns) != 12 {
		t.Fatalf("%d contexts, %d candidates, %d columns", r.NContexts, r.NCandidates, len(r.Columns))
	}
	v, p := r.Methods.Vanilla, r.Methods.PRISM
	t.Logf("Vanilla %.4f %v, PRISM %.4f %v, α-PRISM %.4f, Half %.4f, PRISM−Vanilla %+.4f %v",
		v.Mean, v.CI, p.Mean, p.CI, r.Methods.AlphaPRISM.Mean, r.Methods.Half.Mean, p.DiffVsVanilla.Mean, p.DiffVsVanilla.CI)
	if v.Mean <= 0.1 {
		t.Errorf("Vanilla %.4f: the synthetic judge should agree with humans somewhat", v.Mean)
	}
	for _, m := range methodsFor(DefaultOptions()) {
		d := r.Methods.Get(m).DiffVsVanilla
		if d.CI[0] <= 0 {
			t.Errorf("%v − Vanilla = %+.4f, CI %v; want the CI above 0", m, d.Mean, d.CI)
		}
	}
	flu, coh := r.Profiles["fluency"].A, r.Profiles["coherence"].A
	if flu.Mean <= 0 || flu.SignStable != 5 {
		t.Errorf("fluency a = %+v; the judge overweights it, want a > 0 in every fold", flu)
	}
	if coh.Mean >= 0 || coh.SignStable != 5 {
		t.Errorf("coherence a = %+v; the judge underweights it, want a < 0 in every fold", coh)
	}
	for _, n := range []string{"noise1", "noise2"} {
		if a := r.Profiles[n].A; abs(a.Mean) > abs(flu.Mean)/3 {
			t.Errorf("%s a = %v, not small beside fluency's %v", n, a.Mean, flu.Mean)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
