package offline

import (
	"context"
	"math"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model/datasets"
)

// The caches bound memory only: a judge whose caches hold one entry (so
// every call evicts) scores every request bit for bit as one whose
// caches never fill, in any order of sources.
func TestCacheLimitsChangeNoScore(t *testing.T) {
	d := datasets.Demo()
	instrs := []string{"", "Weight fluency much more heavily than usual.", "Weight coherence much less heavily than usual."}
	var reqs []banks.Request
	for pass := range 2 { // revisit every source after the others
		for ci := range d.Contexts {
			c := d.Contexts[(ci+pass*3)%len(d.Contexts)]
			for _, cand := range c.Candidates {
				for _, in := range instrs {
					reqs = append(reqs, banks.Request{Source: c.Source, CandidateText: cand.Text, Instruction: in, Scale: ten})
				}
			}
		}
	}
	for _, mode := range []judge.Mode{judge.ModeInteger, judge.ModeExpected} {
		tiny := mustJudge(t, mode, 1)
		tiny.sources.limit, tiny.cands.limit, tiny.effects.limit = 1, 1, 1
		roomy := mustJudge(t, mode, 1)
		roomy.sources.limit, roomy.cands.limit, roomy.effects.limit = cacheCap, cacheCap, cacheCap
		for i, r := range reqs {
			a, err := tiny.Score(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			b, err := roomy.Score(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(a.Score) != math.Float64bits(b.Score) || a.HasScore != b.HasScore {
				t.Fatalf("%s request %d: %v with one-entry caches, %v with roomy ones", mode, i, a.Score, b.Score)
			}
		}
		if n := len(tiny.sources.m); n != 1 {
			t.Errorf("%s: a one-entry source cache holds %d", mode, n)
		}
	}
}
