package diag

import (
	"context"
	"math"
	"testing"
)

// TestJointHand: one context, candidates x and y, two runs; centered,
// each is ±(x − y)/2. With x − y differences
//
//	joint ++ 4, 8 | +− 2, 2 | −+ −2, −2 | −− −4, −4 → ±(2, 4), ±(1, 1), ∓(1, 1), ∓(2, 2)
//	a:+ 2, 2, a:− −2, −2 → O_a = ±(1, 1)     b:+ 1, 1, b:− −1, −1 → O_b = ±(0.5, 0.5)
//
// for x: M_a = (2+1+1+2, 4+1+1+2)/4 = (1.5, 2), M_b = (2−1−1+2, 4−1−1+2)/4
// = (0.5, 1), I = (2−1+1−2, 4−1+1−2)/4 = (0, 0.5). With R = 2 and n = 2
// (y mirrors x), Q(U,V) = 2·(U⁰V¹ + U¹V⁰)/4 = (U⁰V¹ + U¹V⁰)/2:
//
//	Q(M_a,O_a) = (1.5 + 2)/2 = 1.75, Q(O_a,O_a) = 1 → projection 1.75
//	Q(M_b,O_b) = (0.25 + 0.5)/2 = 0.375, Q(O_b,O_b) = 0.25 → 1.5
//	Q(M_a,M_a) = 3, Q(M_b,M_b) = 0.5, Q(I,I) = 0
//	pooled projection (1.75 + 0.375)/(1 + 0.25) = 1.7; interaction ratio 0
func TestJointHand(t *testing.T) {
	half := func(d0, d1 float64) map[string][]float64 { return map[string][]float64{"x": {d0, d1}, "y": {0, 0}} }
	rows := ladderRows("c", map[string]map[string][]float64{
		"joint:a/b:++": half(4, 8), "joint:a/b:+-": half(2, 2), "joint:a/b:-+": half(-2, -2), "joint:a/b:--": half(-4, -4),
		"a:+": half(2, 2), "a:-": half(-2, -2), "b:+": half(1, 1), "b:-": half(-1, -1),
	})
	rep, err := Joint(context.Background(), rows, Options{Bootstrap: 10, Seed: 1, MinContexts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.TooFew != "" || len(rep.Pairs) != 1 || rep.PooledPairs != 1 {
		t.Fatalf("report %+v", rep)
	}
	p := rep.Pairs[0]
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"projection_a", p.ProjectionA.Value, 1.75}, {"projection_b", p.ProjectionB.Value, 1.5},
		{"main_rms_a", p.MainRMSA.Value, math.Sqrt(3)}, {"main_rms_b", p.MainRMSB.Value, math.Sqrt(0.5)},
		{"interaction_rms", p.InteractRMS.Value, 0}, {"interaction_ratio", p.Interaction.Value, 0},
		{"pooled_projection", rep.PooledProjection.Value, 1.7}, {"pooled_interaction", rep.PooledInteraction.Value, 0},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", c.name, c.got, c.want)
		}
	}
	// Too few: default 5 contexts; no joint rows at all.
	rep, _ = Joint(context.Background(), rows, Options{Bootstrap: 10})
	if rep.Pairs[0].TooFew == "" || rep.TooFew == "" || !math.IsNaN(rep.PooledProjection.Value) {
		t.Errorf("one context of 5: %+v", rep)
	}
	rep, _ = Joint(context.Background(), rows[:0], Options{Bootstrap: 10})
	if rep.TooFew == "" {
		t.Error("no rows: want too few")
	}
}

// TestDiagTooFewHasNoNumbers: a too-few attribute or pair carries only
// undefined estimates (null in JSON), never zeros.
func TestDiagTooFewHasNoNumbers(t *testing.T) {
	rows := ladderRows("c", map[string]map[string][]float64{
		"baseline": {"x": {5, 5}, "y": {3, 3}}, "a:control": {"x": {6, 6}, "y": {3, 3}},
		"a:+": {"x": {8, 10}, "y": {3, 3}}, "a:-": {"x": {4, 4}, "y": {3, 3}}, "b:+": {"x": {1, 1}, "y": {3, 3}}, "b:-": {"x": {4, 4}, "y": {3, 3}},
		"joint:a/b:++": {"x": {1, 1}, "y": {3, 3}}, "joint:a/b:+-": {"x": {1, 1}, "y": {3, 3}},
		"joint:a/b:-+": {"x": {1, 1}, "y": {3, 3}}, "joint:a/b:--": {"x": {1, 1}, "y": {3, 3}},
	})
	w, _ := Wording(context.Background(), rows, Options{Bootstrap: 5})
	j, _ := Joint(context.Background(), rows, Options{Bootstrap: 5})
	for _, e := range []Est{w.Attributes[0].ZRMS, w.Attributes[0].ControlProjection, j.Pairs[0].ProjectionA, j.Pairs[0].Interaction, j.PooledProjection} {
		if !math.IsNaN(e.Value) || !math.IsNaN(e.CI[0]) {
			t.Errorf("too few but estimate %+v", e)
		}
	}
}
