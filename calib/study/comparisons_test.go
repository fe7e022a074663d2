package study

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
)

// pairDataset is a pairwise dataset of n contexts × candidates A, B, C
// (targets 0, 0.5, 1: a win rate), each context keeping two comparisons
// in Extra["comparisons"]: A beat C, and B beat A.
func pairDataset(n int) *model.Dataset {
	d := &model.Dataset{Name: "pairs", Format: "mtbench", Task: model.TaskAnswer, Metric: model.MetricPairwise}
	for g := range n {
		c := model.Context{ID: fmt.Sprintf("%d/1", g+81), Source: "Question?",
			Extra: map[string]string{model.ExtraComparisons: `[{"winner":"A","loser":"C","judge":"e1"},{"winner":"B","loser":"A","judge":"e2"}]`}}
		for i, id := range []string{"A", "B", "C"} {
			c.Candidates = append(c.Candidates, model.Candidate{ID: id, Text: "Answer " + id, Human: float64(i) / 2})
		}
		d.Contexts = append(d.Contexts, c)
	}
	return d
}

// TestFitCountsDatasetComparisons: a pairwise fit of a workspace study
// reads the dataset's comparison labels. The imported baseline ranks
// A 3 > B 2 > C 1 everywhere, so Vanilla gets A > C right and B > A
// wrong: ½ per context. On the win rates (C > B > A) it would be 0.
func TestFitCountsDatasetComparisons(t *testing.T) {
	ctx := context.Background()
	d := pairDataset(6)
	st, _ := openStore(t, d)
	var rows []model.ScoreRow
	for g, c := range d.Contexts {
		for i, k := range c.Candidates {
			s0 := float64(3 - i)
			z := float64((g+i)%3 - 1)
			rows = append(rows,
				model.ScoreRow{Context: c.ID, Candidate: k.ID, Probe: "baseline", Score: s0},
				model.ScoreRow{Context: c.ID, Candidate: k.ID, Probe: "a:+", Score: s0 + z},
				model.ScoreRow{Context: c.ID, Candidate: k.ID, Probe: "a:-", Score: s0 - z})
		}
	}
	if _, err := st.ImportScores(ctx, "pairs", "imported", rows); err != nil {
		t.Fatal(err)
	}
	info, _, err := Pick(ctx, st, "pairs", "imported", "")
	if err != nil {
		t.Fatal(err)
	}
	data, err := Read(ctx, st, info, Runs{})
	if err != nil {
		t.Fatal(err)
	}
	if len(data.Comparisons) != 12 || data.Comparisons[1] != (model.Comparison{Context: "81/1", Winner: "B", Loser: "A"}) {
		t.Errorf("Read's comparisons: %v", data.Comparisons)
	}
	opts := calib.DefaultOptions()
	opts.Metric, opts.Folds, opts.Bootstrap = model.MetricPairwise, 3, 20
	res, err := Fit(ctx, st, FitRequest{Study: info, Options: opts, Source: "ws"})
	if err != nil {
		t.Fatal(err)
	}
	if rep := res.Report; rep.Comparisons != 12 || rep.Methods.Vanilla.Mean != 0.5 {
		t.Errorf("pairwise fit: %d comparisons, Vanilla %v; want 12, 0.5", rep.Comparisons, rep.Methods.Vanilla.Mean)
	}
	opts.Metric = model.MetricSpearman // Spearman: the win rates, no comparisons
	res, err = Fit(ctx, st, FitRequest{Study: info, Options: opts, Source: "ws"})
	if err != nil {
		t.Fatal(err)
	}
	if rep := res.Report; rep.Comparisons != 0 || rep.Methods.Vanilla.Mean != -1 || res.Design.Pairs != nil {
		t.Errorf("spearman fit: %d comparisons, Vanilla %v; want 0, -1", rep.Comparisons, rep.Methods.Vanilla.Mean)
	}
}

// TestComparisonsMalformed: a dataset's malformed comparisons fail naming
// the dataset, context and entry.
func TestComparisonsMalformed(t *testing.T) {
	d := pairDataset(1)
	d.Contexts[0].Extra[model.ExtraComparisons] = `[{"winner":"A","loser":"A"}]`
	st, _ := openStore(t, d)
	_, err := Comparisons(context.Background(), st, "pairs")
	if err == nil || !strings.Contains(err.Error(), `dataset "pairs": context "81/1": extra field "comparisons": entry 0`) {
		t.Errorf("error %v", err)
	}
}
