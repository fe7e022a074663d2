package diag

import (
	"context"
	"math"
	"testing"

	"github.com/prism-eval/prism/model"
)

// TestResolutionHand: one context, candidates x, y, z on both scales
// (w only on A, so left out), two runs.
//
//	A baseline: run 0 x 5, y 5, z 3 → 1 tie of 3 pairs; run 1 all 4 → 3 ties: 4/6
//	B baseline: run 0 50, 52, 30 → 0 ties; run 1 41, 40, 40 → 1 tie: 1/6
//	a:+ on A: run 0 5, 6, 3; run 1 4, 4, 5   on B: run 0 50, 55, 31; run 1 41, —, 40
//
// y's run-1 response is missing on B, so it counts on neither: 5
// responses; zeros on A: x0, z0, x1 = 3/5; on B: x0, x1, z1 = 3/5. The
// neutral clause is no response column.
func TestResolutionHand(t *testing.T) {
	row := func(cand, probe, run string, s float64) model.ScoreRow {
		return model.ScoreRow{Context: "c", Candidate: cand, Probe: probe, Run: run, Wording: "0", Score: s}
	}
	a := []model.ScoreRow{
		row("x", "baseline", "0", 5), row("y", "baseline", "0", 5), row("z", "baseline", "0", 3), row("w", "baseline", "0", 3),
		row("x", "baseline", "1", 4), row("y", "baseline", "1", 4), row("z", "baseline", "1", 4),
		row("x", "a:+", "0", 5), row("y", "a:+", "0", 6), row("z", "a:+", "0", 3),
		row("x", "a:+", "1", 4), row("y", "a:+", "1", 4), row("z", "a:+", "1", 5),
		row("x", "neutral:n", "0", 5),
	}
	b := []model.ScoreRow{
		row("x", "baseline", "0", 50), row("y", "baseline", "0", 52), row("z", "baseline", "0", 30),
		row("x", "baseline", "1", 41), row("y", "baseline", "1", 40), row("z", "baseline", "1", 40),
		row("x", "a:+", "0", 50), row("y", "a:+", "0", 55), row("z", "a:+", "0", 31),
		row("x", "a:+", "1", 41), row("z", "a:+", "1", 40),
		row("x", "neutral:n", "0", 50),
	}
	rep, err := Resolution(context.Background(), a, b, "1–10", "0–100", Options{Bootstrap: 20, Seed: 1, MinContexts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.TooFew != "" || rep.Pairs != 6 || rep.Responses != 5 || rep.Contexts != 1 || rep.Candidates != 3 || rep.Runs != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"A tied", rep.A.TiedShare.Value, 4.0 / 6}, {"B tied", rep.B.TiedShare.Value, 1.0 / 6},
		{"tied change", rep.TiedChange.Value, 1.0/6 - 4.0/6},
		{"A zero", rep.A.ZeroShare.Value, 3.0 / 5}, {"B zero", rep.B.ZeroShare.Value, 3.0 / 5},
		{"zero change", rep.ZeroChange.Value, 0},
	} {
		if math.Abs(c.got-c.want) > 1e-15 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if rep.A.TiedPairs != 4 || rep.B.TiedPairs != 1 || rep.A.ZeroResponses != 3 || rep.B.ZeroResponses != 3 {
		t.Errorf("counts %+v %+v", rep.A, rep.B)
	}
	// Too few contexts: no shares.
	rep, _ = Resolution(context.Background(), a, b, "1–10", "0–100", Options{Bootstrap: 20})
	if rep.TooFew == "" || !math.IsNaN(rep.A.TiedShare.Value) {
		t.Errorf("one context of 5: %+v", rep)
	}
}
