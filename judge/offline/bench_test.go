package offline

import (
	"context"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

var sinkResult judge.Result

// conditions38 are the 38 instructions of a SummEval run: baseline, 16
// attributes × 2 signs of Table 18 (one wording each), 3 neutral clauses,
// 2 context probes... and one second wording of coverage to reach 38.
func conditions38() []string {
	c := []string{""}
	for clause := range tableClauses {
		c = append(c, plus(clause), minus(clause))
	}
	c = append(c,
		"Take your time and weigh each candidate fairly.",
		"Read the whole text before you answer.",
		"Answer in the format requested.",
		"Score it for an expert reader.",
		"Score it for a busy reader who will only skim it.",
	)
	return c
}

// BenchmarkOfflineJudge measures one call (cached source and candidate
// features, as in a run) over SummEval requests × 38 conditions.
func BenchmarkOfflineJudge(b *testing.B) {
	d := loadSummEval(b)
	conds := conditions38()
	var reqs []banks.Request
	for _, c := range d.Contexts {
		for _, cand := range c.Candidates {
			for _, instr := range conds {
				reqs = append(reqs, banks.Request{Source: c.Source, CandidateText: cand.Text, Instruction: instr, Scale: ten})
			}
		}
	}
	j := mustJudge(b, judge.ModeInteger, 1)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := j.Score(ctx, reqs[i%len(reqs)])
		if err != nil {
			b.Fatal(err)
		}
		sinkResult = r
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkOfflineSummEvalRun is one whole SummEval × 38-condition run
// (60,800 calls) on a fresh judge, cold caches included.
func BenchmarkOfflineSummEvalRun(b *testing.B) {
	d := loadSummEval(b)
	conds := conditions38()
	ctx := context.Background()
	b.ReportAllocs()
	calls := 0
	for i := 0; i < b.N; i++ {
		j := mustJudge(b, judge.ModeInteger, 1)
		for _, c := range d.Contexts {
			for _, cand := range c.Candidates {
				for _, instr := range conds {
					r, err := j.Score(ctx, banks.Request{Source: c.Source, CandidateText: cand.Text, Instruction: instr, Scale: ten})
					if err != nil {
						b.Fatal(err)
					}
					sinkResult = r
					calls++
				}
			}
		}
	}
	b.ReportMetric(float64(calls)/float64(b.N), "calls/run")
	b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "calls/s")
}
