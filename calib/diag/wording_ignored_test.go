package diag

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/signal"

	"github.com/prism-eval/prism/model"
)

// TestLevelProbesIgnoredElsewhere: graded wordings, worded controls and
// joint instructions are controls: the signal screen and the fit design
// give bitwise-identical results with and without their rows.
func TestLevelProbesIgnoredElsewhere(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var rows, extra []model.ScoreRow
	var labels []model.Label
	for c := 0; c < 6; c++ {
		for i := 0; i < 4; i++ {
			ctx, cand := "c"+strconv.Itoa(c), "k"+strconv.Itoa(i)
			labels = append(labels, model.Label{Context: ctx, Candidate: cand, Human: float64(i + c%3)})
			for r := 0; r < 2; r++ {
				add := func(to *[]model.ScoreRow, p string) {
					*to = append(*to, model.ScoreRow{Context: ctx, Candidate: cand, Probe: p, Run: strconv.Itoa(r), Wording: "0", Score: float64(rng.IntN(10) + 1)})
				}
				for _, p := range []string{"baseline", "a:+", "a:-", "b:+", "b:-", "neutral:n"} {
					add(&rows, p)
				}
				for _, p := range []string{"a:control", "a:slightly+", "a:much-", "joint:a/b:+-", "joint:a/b:--"} {
					add(&extra, p)
				}
			}
		}
	}
	// Interleave the extra rows so their position cannot matter either.
	var mixed []model.ScoreRow
	for i := range rows {
		mixed = append(mixed, rows[i])
		if i < len(extra) {
			mixed = append(mixed, extra[i])
		}
	}
	if len(extra) > len(rows) {
		mixed = append(mixed, extra[len(rows):]...)
	}
	opts := signal.Options{Bootstrap: 50, Seed: 1}
	s1, err1 := signal.Signal(context.Background(), rows, opts)
	s2, err2 := signal.Signal(context.Background(), mixed, opts)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	j1, _ := json.Marshal(s1)
	j2, _ := json.Marshal(s2)
	if string(j1) != string(j2) {
		t.Errorf("signal report changes with level rows:\n%s\n%s", j1, j2)
	}
	d1, _, err1 := calib.BuildDesign(rows, labels, calib.BuildOptions{})
	d2, _, err2 := calib.BuildDesign(mixed, labels, calib.BuildOptions{})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !reflect.DeepEqual(d1, d2) {
		t.Error("design changes with level rows")
	}
}
