package diag

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/prism-eval/prism/model"
)

var sinkWording *WordingReport

// ladderStudy is a SummEval-sized ladder study: 100 contexts × 16
// candidates × 2 runs, six attributes with every level and control,
// 1–10 integer scores.
func ladderStudy() []model.ScoreRow {
	rng := rand.New(rand.NewPCG(1, 2))
	var probes []string
	for _, a := range []string{"length", "detail", "extractiveness", "repetition", "formality", "hedging"} {
		probes = append(probes, a+":+", a+":-", a+":control", a+":slightly+", a+":slightly-", a+":much+", a+":much-")
	}
	probes = append(probes, "baseline")
	var rows []model.ScoreRow
	for c := 0; c < 100; c++ {
		for i := 0; i < 16; i++ {
			for _, p := range probes {
				for r := 0; r < 2; r++ {
					rows = append(rows, model.ScoreRow{Context: "c" + strconv.Itoa(c), Candidate: "s" + strconv.Itoa(i), Probe: p,
						Run: strconv.Itoa(r), Wording: "0", Score: float64(1 + (i+c+len(p))%5 + rng.IntN(3))})
				}
			}
		}
	}
	return rows
}

// BenchmarkWordingSummEval: the wording diagnostic of a SummEval-sized
// ladder study (137,600 rows) with docs/protocol.md §15's 2,000 resamples.
func BenchmarkWordingSummEval(b *testing.B) {
	rows := ladderStudy()
	b.ReportAllocs()
	for b.Loop() {
		r, err := Wording(context.Background(), rows, Options{Bootstrap: 2000, Seed: 42})
		if err != nil || len(r.Pooled) != 3 {
			b.Fatal(err)
		}
		sinkWording = r
	}
}
