package signal_test

import (
	"context"
	"fmt"
	"math"

	"github.com/prism-eval/prism/calib/signal"
	"github.com/prism-eval/prism/model"
)

// Two candidates scored in two runs: the contrast reproduces in sign but
// not in size, so Q = (1·½ + ½·1 + 1·½ + ½·1)/(2·2·1) = ½ and the
// reproducible RMS is √½.
func ExampleCrossRunQ() {
	u := [][]float64{{1, 0.5}, {-1, -0.5}} // candidate × run
	q := signal.CrossRunQ(u, u)
	fmt.Printf("Q = %.3f, reproducible RMS = %.3f\n", q, math.Sqrt(q))
	// Output: Q = 0.500, reproducible RMS = 0.707
}

// Five contexts of two summaries each (MinContexts: fewer give no
// verdict), all alike: the "detail" probe moves them apart by 2 points
// (each sign averaged over its wordings), a neutral clause by 1, so the
// ratio is 2; every bootstrap resample is alike, and the interval
// collapses.
func ExampleSignal() {
	var rows []model.ScoreRow
	for g := range signal.MinContexts {
		score := func(cand, probe, wording string, s float64) {
			rows = append(rows, model.ScoreRow{Context: fmt.Sprint("doc", g), Candidate: cand, Probe: probe, Wording: wording, Score: s})
		}
		score("a", "baseline", "", 5)
		score("b", "baseline", "", 5)
		score("a", "detail:+", "0", 7) // the two wordings of detail:+ average to (6, 4)
		score("a", "detail:+", "1", 5)
		score("b", "detail:+", "0", 4)
		score("b", "detail:+", "1", 4)
		score("a", "detail:-", "0", 4)
		score("b", "detail:-", "0", 6)
		score("a", "neutral:calm", "", 5.5)
		score("b", "neutral:calm", "", 4.5)
	}
	r, err := signal.Signal(context.Background(), rows, signal.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("pooling:", r.Pooling)
	for _, u := range r.Units {
		fmt.Printf("%s: N %d over %d contexts, RMS %.2f, ratio %.2f [%.2f, %.2f], pass %v\n", u.Name, u.N, u.Contexts, u.RMS, u.Ratio, u.CI[0], u.CI[1], u.Pass)
	}
	fmt.Printf("neutral RMS %.2f\n", r.Neutral.RMS)
	// Output:
	// pooling: wording-mean
	// detail: N 20 over 5 contexts, RMS 1.00, ratio 2.00 [2.00, 2.00], pass true
	// neutral RMS 0.50
}
