package datasets

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/shareddata"
)

// The real datasets in ../shared/data (see each PROVENANCE.md); these
// tests skip when the files are absent.

func TestLoadSummEvalReal(t *testing.T) {
	path := shareddata.Path(t, "summeval/data.json")
	d, err := Load(FormatSummEval, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(d.Contexts); got != 100 {
		t.Fatalf("contexts = %d, want 100", got)
	}
	for _, c := range d.Contexts {
		if len(c.Candidates) != 16 {
			t.Fatalf("context %s: %d candidates, want 16", c.ID, len(c.Candidates))
		}
		if c.Source == "" || c.Extra["reference"] == "" {
			t.Fatalf("context %s: empty source or reference", c.ID)
		}
	}
	if d.Task != model.TaskNewsSummary || d.Metric != model.MetricSpearman || d.Name != "data" {
		t.Errorf("task, metric, name = %q, %q, %q", d.Task, d.Metric, d.Name)
	}
	if want := []string{"coherence", "consistency", "fluency", "relevance"}; !equalStrings(d.Criteria, want) {
		t.Errorf("criteria = %v, want %v", d.Criteria, want)
	}
	// PROVENANCE.md: first document, first system M11 with scores
	// coherence 4/3, consistency 1, fluency 3, relevance 5/3, so the
	// target is (4/3 + 1 + 3 + 5/3)/4 = 7/4 = 1.75 (hand calculation).
	c0 := d.Contexts[0]
	if c0.ID != "dm-test-8764fb95bfad8ee849274873a92fb8d6b400eee2" {
		t.Fatalf("first context = %s", c0.ID)
	}
	m11 := c0.Candidates[0]
	if m11.ID != "M11" {
		t.Fatalf("first candidate = %s, want M11 (file order)", m11.ID)
	}
	if math.Abs(m11.Human-1.75) > 1e-12 {
		t.Errorf("M11 target = %v, want 1.75", m11.Human)
	}
	if math.Abs(m11.Scores["coherence"]-4.0/3) > 1e-12 || m11.Scores["consistency"] != 1 {
		t.Errorf("M11 scores = %v", m11.Scores)
	}
	// Every score is a mean of 3 experts on 1–5, so every target is a
	// multiple of 1/12 in [1, 5].
	for _, c := range d.Contexts {
		for _, x := range c.Candidates {
			if x.Human < 1 || x.Human > 5 || math.Abs(x.Human*12-math.Round(x.Human*12)) > 1e-9 {
				t.Fatalf("%s/%s target %v not a multiple of 1/12 in [1,5]", c.ID, x.ID, x.Human)
			}
		}
	}
}

func TestLoadTopicalChatReal(t *testing.T) {
	path := shareddata.Path(t, "usr_topicalchat/topical_chat.json")
	d, err := Load(FormatTopicalChat, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Contexts) != 60 || d.NumCandidates() != 360 {
		t.Fatalf("%d contexts, %d candidates; want 60 × 6", len(d.Contexts), d.NumCandidates())
	}
	wantIDs := []string{"Original Ground Truth", "Argmax Decoding", "Nucleus Decoding (p = 0.3)",
		"Nucleus Decoding (p = 0.5)", "Nucleus Decoding (p = 0.7)", "New Human Generated"}
	knowledge := map[string]bool{}
	for _, c := range d.Contexts {
		var ids []string
		for _, x := range c.Candidates {
			ids = append(ids, x.ID)
			if x.Human != x.Scores["overall"] || x.Human < 1 || x.Human > 5 {
				t.Fatalf("%s/%s: human %v, overall %v", c.ID, x.ID, x.Human, x.Scores["overall"])
			}
		}
		if !equalStrings(ids, wantIDs) {
			t.Fatalf("context %s candidates %v", c.ID, ids)
		}
		if c.Extra["knowledge"] == "" {
			t.Fatalf("context %s: no knowledge fact", c.ID)
		}
		knowledge[c.Extra["knowledge"]] = true
	}
	// PROVENANCE.md: 50 distinct facts over the 60 contexts.
	if len(knowledge) != 50 {
		t.Errorf("distinct knowledge facts = %d, want 50", len(knowledge))
	}
	if len(d.Criteria) != 6 || d.Task != model.TaskDialogue {
		t.Errorf("criteria %v task %q", d.Criteria, d.Task)
	}
}

func TestLoadJudgeBenchReal(t *testing.T) {
	gpt := shareddata.Path(t, "judgebench/dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl")
	dir := filepath.Dir(gpt)
	d, err := Load(FormatJudgeBench, dir)
	if err != nil {
		t.Fatal(err)
	}
	// PROVENANCE.md: 350 + 270 pairs; A>B 193 + 143.
	if len(d.Contexts) != 620 {
		t.Fatalf("pairs = %d, want 620", len(d.Contexts))
	}
	aWins := 0
	for _, c := range d.Contexts {
		if len(c.Candidates) != 2 || c.Candidates[0].ID != "A" || c.Candidates[1].ID != "B" {
			t.Fatalf("pair %s candidates %+v", c.ID, c.Candidates)
		}
		if c.Candidates[0].Human+c.Candidates[1].Human != 1 {
			t.Fatalf("pair %s: humans %v, %v", c.ID, c.Candidates[0].Human, c.Candidates[1].Human)
		}
		if c.Candidates[0].Human == 1 {
			aWins++
		}
	}
	if aWins != 193+143 {
		t.Errorf("A>B = %d, want 336", aWins)
	}
	if d.Metric != model.MetricPairwise || d.Task != model.TaskAnswer {
		t.Errorf("metric %q task %q", d.Metric, d.Task)
	}
	one, err := Load(FormatJudgeBench, gpt)
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Contexts) != 350 {
		t.Errorf("gpt-4o file: %d pairs, want 350", len(one.Contexts))
	}
	// The quirk of PROVENANCE.md: identical responses, label B>A, kept.
	for _, c := range d.Contexts {
		if c.ID == "a28a8dae-78a7-51a7-a46f-84a6e502068d" {
			if c.Candidates[0].Text != c.Candidates[1].Text || c.Candidates[1].Human != 1 {
				t.Errorf("identical-response pair not kept as in the file")
			}
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A bad value in the real file is reported at its own line and column
// with the full field path.
func TestLoadSummEvalRealErrorPosition(t *testing.T) {
	data, err := os.ReadFile(shareddata.Path(t, "summeval/data.json"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	// Break the 3rd document's M13 fluency score.
	doc, sys := 0, ""
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, `  "`):
			doc++
		case strings.HasPrefix(l, `      "M`):
			sys = strings.Trim(strings.TrimSpace(l), `":{ `)
		case doc == 3 && sys == "M13" && strings.Contains(l, `"fluency": `):
			col := strings.Index(l, `"fluency": `) + len(`"fluency": `) + 1
			lines[i] = l[:col-1] + `"five",`
			_, err := Read(FormatSummEval, strings.NewReader(strings.Join(lines, "\n")), "data.json")
			docID := strings.Trim(strings.TrimSpace(lines[firstLineWithPrefix(lines, `  "`, 3)]), `":{ `)
			want := fmt.Sprintf("data.json:%d:%d: %s.sys_summs.M13.scores.fluency: not a number (got string)", i+1, col, docID)
			if err == nil || err.Error() != want {
				t.Errorf("error %v\nwant  %s", err, want)
			}
			return
		}
	}
	t.Fatal("3rd document's M13 fluency not found")
}

func firstLineWithPrefix(lines []string, prefix string, nth int) int {
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			if nth--; nth == 0 {
				return i
			}
		}
	}
	return -1
}
