package study

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// Rubric studies read back as baselines: one per rubric, criteria in the
// rubric's order, every candidate's stored rating, calls per candidate from
// the store's answers (SAJA: one call per candidate; G-Eval: criteria ×
// samples) and tokens as the judge reported them.
func TestStoredRubricRatingsBaselines(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	saja := rubricSpec(t, d, "saja-broad")
	runSpec(t, st, saja, 100, 7)
	geval := rubricSpec(t, d, "geval-summeval")
	geval.Samples = 3
	runSpec(t, st, geval, 100, 7)

	ctx := context.Background()
	rrs, err := StoredRubricRatings(ctx, st, d.Name, "offline")
	if err != nil {
		t.Fatal(err)
	}
	if len(rrs) != 2 || rrs[0].Rubric.Name != "geval-summeval" || rrs[1].Rubric.Name != "saja-broad" {
		t.Fatalf("ratings of %d rubrics, want geval-summeval then saja-broad", len(rrs))
	}
	bs, err := Baselines(rrs, BaselineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := d.NumCandidates()
	want := []struct {
		name, kind string
		crits      int
		calls      float64
	}{{"geval", calib.BaselineGEval, 4, 4 * 3}, {"saja_broad", calib.BaselineForest, 8, 1}}
	for i, w := range want {
		b := bs[i]
		if b.Name != w.name || b.Kind != w.kind || len(b.Criteria) != w.crits || len(b.Scales) != w.crits || len(b.Scores) != n {
			t.Errorf("baseline %d: %s %s, %d criteria, %d scales, %d candidates; want %s %s %d, %d", i, b.Name, b.Kind,
				len(b.Criteria), len(b.Scales), len(b.Scores), w.name, w.kind, w.crits, n)
		}
		if b.CallsPerCandidate != w.calls {
			t.Errorf("%s: %v calls per candidate, want %v", b.Name, b.CallsPerCandidate, w.calls)
		}
	}
	// Tokens: the SAJA call's counts are stored once per call; a sampled
	// G-Eval request's once per request (its N samples' total).
	if got := bs[1].TokensPerCandidate; got != 107 {
		t.Errorf("SAJA tokens per candidate %v, want 107", got)
	}
	if got := bs[0].TokensPerCandidate; got != 4*107 {
		t.Errorf("G-Eval tokens per candidate %v, want %v", got, 4*107)
	}
	// The scores are the stored ones, in criterion order.
	rows, err := st.Scores(ctx, d.Name, "offline", rrs[1].Hash)
	if err != nil {
		t.Fatal(err)
	}
	crit := map[string]int{}
	for i, c := range bs[1].Criteria {
		crit[c] = i
	}
	for _, r := range rows {
		_, c, _ := model.SplitRubricProbe(r.Probe)
		if got := bs[1].Scores[[2]string{r.Context, r.Candidate}][crit[c]]; got != r.Score {
			t.Errorf("%s/%s %s: baseline %v, stored %v", r.Context, r.Candidate, c, got, r.Score)
		}
	}
	// The G-Eval scales are the rubric's (fluency 1–3).
	for i, c := range bs[0].Criteria {
		if w := [2]float64{1, 5}; c == "fluency" {
			if bs[0].Scales[i] != [2]float64{1, 3} {
				t.Errorf("fluency scale %v", bs[0].Scales[i])
			}
		} else if bs[0].Scales[i] != w {
			t.Errorf("%s scale %v", c, bs[0].Scales[i])
		}
	}
}

// A candidate's rating is the mean over its runs' scored rows; a cell with
// no scored row is NaN (the fit imputes and counts it), never a zero; a
// criterion the rubric lacks is an error naming the line.
func TestRubricRatingsBaseline(t *testing.T) {
	r, err := banks.BuiltinRubric("geval-summeval")
	if err != nil {
		t.Fatal(err)
	}
	p := func(c string) string { return model.RubricProbe("geval-summeval", c) }
	rows := []model.ScoreRow{
		{Context: "c", Candidate: "a", Probe: p("coherence"), Score: 2, Run: "0"},
		{Context: "c", Candidate: "a", Probe: p("coherence"), Score: 5, Run: "1"},
		{Context: "c", Candidate: "a", Probe: p("fluency"), Missing: true, Run: "0"},
		{Context: "c", Candidate: "a", Probe: p("fluency"), Score: 3, Run: "1"},
		{Context: "c", Candidate: "a", Probe: p("relevance"), Missing: true},
		{Context: "c", Candidate: "b", Probe: p("consistency"), Score: 4},
	}
	b, err := RubricRatings{Rubric: r, Rows: rows}.Baseline("geval", BaselineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for i, c := range b.Criteria {
		idx[c] = i
	}
	a := b.Scores[[2]string{"c", "a"}]
	if a[idx["coherence"]] != 3.5 || a[idx["fluency"]] != 3 || !math.IsNaN(a[idx["relevance"]]) || !math.IsNaN(a[idx["consistency"]]) {
		t.Errorf("candidate a: %v (criteria %v)", a, b.Criteria)
	}
	if bb := b.Scores[[2]string{"c", "b"}]; bb[idx["consistency"]] != 4 || !math.IsNaN(bb[idx["coherence"]]) {
		t.Errorf("candidate b: %v", bb)
	}
	if b.CallsPerCandidate != 0 || b.TokensPerCandidate != 0 {
		t.Errorf("ratings from a file have a budget: %v, %v", b.CallsPerCandidate, b.TokensPerCandidate)
	}
	rows = append(rows, model.ScoreRow{Context: "c", Candidate: "a", Probe: p("wit"), Score: 1, Line: 9})
	if _, err := (RubricRatings{Rubric: r, Rows: rows}).Baseline("geval", BaselineOptions{}); err == nil || !strings.Contains(err.Error(), "line 9") || !strings.Contains(err.Error(), `"wit"`) {
		t.Errorf("unknown criterion: %v", err)
	}
	s, _ := banks.BuiltinRubric("saja-broad")
	if _, err := (RubricRatings{Rubric: s}).Baseline("x", BaselineOptions{Head: "tree"}); err == nil {
		t.Error("head tree accepted")
	}
	if b, _ := (RubricRatings{Rubric: s}).Baseline("x", BaselineOptions{Head: calib.BaselineRidge}); b.Kind != calib.BaselineRidge {
		t.Errorf("ridge head: kind %q", b.Kind)
	}
}

// Ratings in score rows are matched to rubrics by name: built-ins, or the
// given files; other names are reported. Two rubrics of one name are told
// apart by hash.
func TestRatingsFromRowsAndNames(t *testing.T) {
	rows := []model.ScoreRow{
		{Context: "c", Candidate: "a", Probe: "baseline", Score: 1},
		{Context: "c", Candidate: "a", Probe: model.RubricProbe("saja-granular", "grammar"), Score: 4},
		{Context: "c", Candidate: "a", Probe: model.RubricProbe("mine", "x"), Score: 4},
	}
	found, unknown := RatingsFromRows(rows, nil)
	if len(found) != 1 || found[0].Rubric.Name != "saja-granular" || len(found[0].Rows) != 1 || len(unknown) != 1 || unknown[0] != "mine" {
		t.Fatalf("found %d, unknown %v", len(found), unknown)
	}
	g1, _ := banks.BuiltinRubric("geval-summeval")
	g2 := g1.Clone()
	g2.Criteria[0].Definition += " Really."
	bs, err := Baselines([]RubricRatings{{Hash: g1.Hash(), Rubric: g1}, {Hash: g2.Hash(), Rubric: g2}}, BaselineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if bs[0].Name == bs[1].Name || !strings.HasPrefix(bs[0].Name, "geval_") {
		t.Errorf("names %q, %q", bs[0].Name, bs[1].Name)
	}
}

// Budgets of the bank methods: Vanilla the baseline's answers, the fitted
// methods the baseline's and their columns' (neutral controls and unused
// probes excluded), per candidate with a baseline answer.
func TestMethodBudgets(t *testing.T) {
	usage := []store.ProbeUsage{
		{Probe: "a:+", Answered: 40, Candidates: 10, PromptTokens: 400, CompletionTokens: 40},
		{Probe: "a:-", Answered: 40, Candidates: 10, PromptTokens: 400},
		{Probe: "b:+", Answered: 20, Candidates: 10, PromptTokens: 999},
		{Probe: "baseline", Answered: 20, Candidates: 10, PromptTokens: 150, CompletionTokens: 50},
		{Probe: "neutral:n1", Answered: 10, Candidates: 10, PromptTokens: 100},
	}
	got := MethodBudgets(usage, []string{"a:+", "a:-"})
	if v := got["vanilla"]; v != (calib.Budget{CallsPerCandidate: 2, TokensPerCandidate: 20}) {
		t.Errorf("vanilla %+v", v)
	}
	for _, m := range []string{"prism", "alpha_prism", "half", "taylor"} {
		if v := got[m]; v != (calib.Budget{CallsPerCandidate: 10, TokensPerCandidate: 104}) {
			t.Errorf("%s %+v", m, v)
		}
	}
	if MethodBudgets(usage[:3], []string{"a:+"}) != nil {
		t.Error("a budget without baseline answers")
	}
}
