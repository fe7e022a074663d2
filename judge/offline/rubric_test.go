package offline

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
)

func rubricJudge(t *testing.T, mode judge.Mode, repeats int) *Judge {
	t.Helper()
	j, err := New(judge.Config{Backend: judge.BackendOffline, Mode: mode, Repeats: repeats})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func rubricRequests(t *testing.T, name string, cand string) []banks.Request {
	t.Helper()
	r, err := banks.BuiltinRubric(name)
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := r.Render(model.TaskNewsSummary, model.Context{ID: "c", Source: article}, model.Candidate{ID: "x", Text: cand})
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

// TestCriterionLogit checks the documented formula on hand-computed values:
// halo 0.5, gain 4, leniency 0.3.
func TestCriterionLogit(t *testing.T) {
	var f Features
	f[Grounding] = Ref[Grounding] + 0.25
	f[Length] = Ref[Length] + 0.1
	f[Repetition] = Ref[Repetition] + 0.2
	cases := []struct {
		c    banks.RatedCriterion
		z    float64
		want float64
	}{
		// .5·1 + .5·4·.25 + .3 = 1.3
		{banks.RatedCriterion{Name: "consistency"}, 1, 1.3},
		// conciseness rewards less length: .5·4·(−.1) + .3 = .1
		{banks.RatedCriterion{Name: "conciseness"}, 0, 0.1},
		// overall is z + .3
		{banks.RatedCriterion{Name: "overall"}, 2, 2.3},
		{banks.RatedCriterion{Name: "total", Label: "Overall impression"}, -1, -0.7},
		// unknown words: overall
		{banks.RatedCriterion{Name: "zzz", Label: "Zzz"}, 0.5, 0.8},
		// by keyword: "redundant" names repetition, read with sign −1: .5·2 + .5·4·(−.2) + .3 = .9
		{banks.RatedCriterion{Name: "x", Label: "Not redundant"}, 2, 0.9},
		// by keyword: "grounded" → grounding: .5·0 + .5·4·.25 + .3 = .8
		{banks.RatedCriterion{Name: "y", Label: "Grounded claims"}, 0, 0.8},
	}
	for _, c := range cases {
		if got := criterionLogit(c.c, f, c.z); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("criterionLogit(%s, z=%v) = %v, want %v", c.c.Name, c.z, got, c.want)
		}
	}
	// Every criterion of the built-in rubrics maps to a feature or is overall on purpose.
	for _, r := range banks.BuiltinRubrics() {
		for _, c := range r.Criteria {
			if _, ok := criterionOf(banks.RatedCriterion{Name: c.Name, Label: c.DisplayLabel()}); !ok && c.Name != "overall" {
				t.Errorf("%s: criterion %s has no feature", r.Name, c.Name)
			}
		}
	}
}

func TestOfflineSAJA(t *testing.T) {
	good := showcase[Length][0]
	for _, name := range []string{"saja-broad", "saja-granular"} {
		reqs := rubricRequests(t, name, good)
		if len(reqs) != 1 {
			t.Fatalf("%d requests", len(reqs))
		}
		req := reqs[0]
		for _, mode := range []judge.Mode{judge.ModeInteger, judge.ModeExpected} {
			j := rubricJudge(t, mode, 3)
			res, err := j.Score(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Items) != len(req.Rubric.Criteria) || len(res.Samples) != 3 {
				t.Fatalf("%s: %d items, %d samples", name, len(res.Items), len(res.Samples))
			}
			for _, s := range res.Samples {
				// The raw reply is what a server would send: ParseSAJA reads
				// back exactly the sample's items.
				items, err := judge.ParseSAJA(s.Raw, req.Rubric.Criteria)
				if err != nil || !reflect.DeepEqual(items, s.Items) {
					t.Fatalf("%s: raw %s parses to %+v, %v; sample items %+v", name, s.Raw, items, err, s.Items)
				}
			}
			for i, it := range res.Items {
				sc := req.Rubric.Criteria[i].Scale
				if !it.HasScore || it.ID != req.Rubric.Criteria[i].Name || it.Score < float64(sc.Min) || it.Score > float64(sc.Max) {
					t.Errorf("%s: item %+v", name, it)
				}
			}
			again, _ := j.Score(context.Background(), req)
			if !reflect.DeepEqual(stripLatency(again), stripLatency(res)) {
				t.Errorf("%s: the same request scored differently", name)
			}
		}
	}
}

func TestOfflineGEval(t *testing.T) {
	g, _ := banks.BuiltinRubric("geval-summeval")
	faithful := showcase[Length][0]
	invented := "Real Madrid sacked coach Carlo Ancelotti on Friday after a 4-0 defeat, and Cristiano Ronaldo will leave in 2016."
	score := func(mode judge.Mode, cand string) (map[string]float64, float64) {
		j := rubricJudge(t, mode, 20)
		out := map[string]float64{}
		for _, req := range rubricRequests(t, "geval-summeval", cand) {
			res, err := j.Score(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			c := req.Rubric.Criteria[0]
			if len(res.Samples) != 20 || !res.HasScore || res.Score < float64(c.Scale.Min) || res.Score > float64(c.Scale.Max) {
				t.Fatalf("%s: %+v", c.Name, res)
			}
			for _, s := range res.Samples {
				if mode == judge.ModeInteger && s.Score != math.Trunc(s.Score) {
					t.Fatalf("integer-mode sample %v", s.Score)
				}
				if mode == judge.ModeExpected && s.ProbMass != 1 {
					t.Fatalf("expected-mode mass %v", s.ProbMass)
				}
				if v, err := judge.ParseRating(s.Raw, c.Label, c.Scale); err != nil || v != s.Score {
					t.Fatalf("raw %q reads %v, %v; sample %v", s.Raw, v, err, s.Score)
				}
			}
			out[c.Name] = res.Score
		}
		total, err := judge.GEvalScore(g.Criteria, out)
		if err != nil || total < 0 || total > 1 {
			t.Fatalf("GEvalScore %v, %v", total, err)
		}
		return out, total
	}
	for _, mode := range []judge.Mode{judge.ModeInteger, judge.ModeExpected} {
		a, ta := score(mode, faithful)
		b, tb := score(mode, invented)
		if a["consistency"] <= b["consistency"] || ta <= tb {
			t.Errorf("%s: the invented summary rated as consistent (%v vs %v) or better overall (%v vs %v)",
				mode, b["consistency"], a["consistency"], tb, ta)
		}
	}
	// Criteria on the same scale draw their own noise: twenty integer
	// samples of coherence and relevance are not the same sequence.
	j := rubricJudge(t, judge.ModeInteger, 20)
	reqs := rubricRequests(t, "geval-summeval", showcase[Coverage][0])
	r0, _ := j.Score(context.Background(), reqs[0])
	r3, _ := j.Score(context.Background(), reqs[3])
	same := true
	for i := range r0.Samples {
		same = same && r0.Samples[i].Score-math.Round(r0.Score) == r3.Samples[i].Score-math.Round(r3.Score)
	}
	if same {
		t.Error("coherence and relevance samples move together")
	}
}

func TestOfflineRubricErrors(t *testing.T) {
	j := rubricJudge(t, judge.ModeInteger, 1)
	base := rubricRequests(t, "geval-summeval", "A summary.")[0]
	bad := []func(r *banks.Request){
		func(r *banks.Request) { r.Rubric.Criteria = nil },
		func(r *banks.Request) { r.Rubric.Criteria = append(r.Rubric.Criteria, r.Rubric.Criteria[0]) },
		func(r *banks.Request) { r.Rubric.Kind = "other" },
		func(r *banks.Request) { r.Rubric.Criteria[0].Scale.Max = 1 },
	}
	for i, edit := range bad {
		req := base
		rc := *base.Rubric
		rc.Criteria = append([]banks.RatedCriterion(nil), rc.Criteria...)
		req.Rubric = &rc
		edit(&req)
		if _, err := j.Score(context.Background(), req); judge.KindOf(err) != judge.KindConfig {
			t.Errorf("case %d: error %v, want config", i, err)
		}
	}
}

func stripLatency(r judge.Result) judge.Result {
	r.Latency = 0
	r.Samples = append([]judge.Sample(nil), r.Samples...)
	for i := range r.Samples {
		r.Samples[i].Latency = 0
	}
	return r
}
