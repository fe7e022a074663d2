package offline

import (
	"context"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

func FuzzOfflineScore(f *testing.F) {
	f.Add(article, showcase[Length][0], plus("how long the summary is"), 1, 10)
	f.Add("", "", "", 0, 4)
	f.Add("A. B! C?", "\"\"\"'' 1,2.3 -x- n't , .", "Let much more slightly count for less", -5, 5)
	f.Fuzz(func(t *testing.T, src, cand, instr string, lo, hi int) {
		if hi <= lo || hi-lo > 1000 {
			return
		}
		sc := banks.Scale{Min: lo, Max: hi}
		for _, mode := range []judge.Mode{judge.ModeInteger, judge.ModeExpected} {
			j, _ := New(judge.Config{Mode: mode, Repeats: 2})
			req := banks.Request{Source: src, CandidateText: cand, Instruction: instr, Scale: sc}
			a, err := j.Score(context.Background(), req)
			if err != nil || !a.HasScore {
				t.Fatalf("no score: %v", err)
			}
			if a.Score < float64(lo) || a.Score > float64(hi) {
				t.Fatalf("score %v outside %d–%d", a.Score, lo, hi)
			}
			b, _ := j.Score(context.Background(), req)
			if a.Score != b.Score {
				t.Fatalf("not deterministic: %v then %v", a.Score, b.Score)
			}
		}
	})
}
