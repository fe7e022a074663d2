package study

import (
	"context"
	"strings"
	"testing"
)

// TestCriterionLabels: a criterion's labels are the candidates' scores of
// it in the dataset's order, a candidate without it has no label, and an
// unknown criterion fails listing the dataset's.
func TestCriterionLabels(t *testing.T) {
	d := tinyDataset("crit")
	for c := range d.Contexts {
		for k := range d.Contexts[c].Candidates {
			cand := &d.Contexts[c].Candidates[k]
			cand.Scores = map[string]float64{"fluency": float64(10*c + k)}
			if c == 1 && k == 1 {
				continue
			}
			cand.Scores["coherence"] = float64(-k)
		}
	}
	st, _ := openStore(t, d)
	ctx := context.Background()
	got, err := CriterionLabels(ctx, st, "crit", "fluency")
	if err != nil || len(got) != 4 || got[3].Context != "doc1" || got[3].Candidate != "s1" || got[3].Human != 11 {
		t.Fatalf("fluency labels %+v, %v", got, err)
	}
	if got, err := CriterionLabels(ctx, st, "crit", "coherence"); err != nil || len(got) != 3 {
		t.Errorf("coherence labels %+v, %v: want 3 (doc1/s1 has none)", got, err)
	}
	_, err = CriterionLabels(ctx, st, "crit", "wit")
	if err == nil || !strings.Contains(err.Error(), "its criteria: coherence, fluency") {
		t.Errorf("unknown criterion: %v", err)
	}
}
