package order

import (
	"math"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"
)

// Reference values: scipy.stats.kendalltau (τ-b) gives 1/3 for the first
// case and 0.8164965809277261 for the tied one (= 2/√6 by hand: pairs
// (0,1) tied in x, (0,2) and (1,2) concordant, n₀ = 3).
func TestKendallTauBHandComputed(t *testing.T) {
	cases := []struct {
		x, y []float64
		want float64
		ok   bool
	}{
		{[]float64{1, 2, 3}, []float64{1, 3, 2}, 1.0 / 3, true},
		{[]float64{1, 1, 2}, []float64{1, 2, 3}, 2 / math.Sqrt(6), true},
		{[]float64{1, 2, 3}, []float64{3, 2, 1}, -1, true},
		{[]float64{1, 2, math.NaN(), 3}, []float64{1, 2, 9, 3}, 1, true}, // NaN cells dropped
		{[]float64{1, 1, 1}, []float64{1, 2, 3}, 0, false},               // constant side
		{[]float64{1}, []float64{1}, 0, false},
	}
	for _, c := range cases {
		got, ok := calib.KendallTauB(c.x, c.y)
		if ok != c.ok || math.Abs(got-c.want) > 1e-15 {
			t.Errorf("τ_b(%v, %v) = %v %v, want %v %v", c.x, c.y, got, ok, c.want, c.ok)
		}
	}
}

// handContext: 3 candidates, one unit ATTR:-. Order 0: base (1,2,3),
// probe (0,2,1); order 1: base (3,1,1), probe (3,0,−2). Pointwise run 0
// (1,2,3), run 1 (1,3,2) with probe runs (0,3,1) and (0,1,2).
func handContext(id string) Context {
	return Context{
		ID:         id,
		Human:      []float64{1, 2, 3},
		Base:       [][][]float64{{{1, 2, 3}}, {{3, 1, 1}}},
		Probe:      [][][][]float64{{{{0, 2, 1}}, {{3, 0, -2}}}},
		Point:      [][]float64{{1, 2, 3}, {1, 3, 2}},
		PointProbe: [][][]float64{{{0, 3, 1}, {0, 1, 2}}},
	}
}

func TestOrderDiagnosticsHandComputed(t *testing.T) {
	d := &Data{Units: []string{"x:-"}, Signs: []float64{-1}}
	for i := range 5 {
		d.Contexts = append(d.Contexts, handContext(string(rune('a'+i))))
	}
	r, err := Diagnostics(d, Options{Bootstrap: 50, Seed: 1, MinContexts: 5})
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, v Stat, want float64) {
		t.Helper()
		if v.Value == nil || math.Abs(*v.Value-want) > 1e-12 {
			t.Errorf("%s = %+v, want %v", what, v, want)
			return
		}
		// Five copies of one context: every resample gives the value.
		if v.CI == nil || math.Abs(v.CI[0]-want) > 1e-12 || math.Abs(v.CI[1]-want) > 1e-12 {
			t.Errorf("%s interval %v, want [%v, %v]", what, v.CI, want, want)
		}
	}
	// Δ⁻ = s₀ − s: order 0 (1,0,2), order 1 (0,1,3); centered (0,−1,1)
	// and (−4/3,−1/3,5/3): Σxy = 2, Σxx = 2, Σyy = 42/9, r = 6/√84.
	if len(r.Curve) != 1 || r.Curve[0].Orders != 1 {
		t.Fatalf("curve %+v", r.Curve)
	}
	near("curve M=1", r.Curve[0].Stat, 6/math.Sqrt(84))
	// Pointwise Δ⁻: run 0 (1,−1,2), run 1 (1,2,0); centered (1/3,−5/3,4/3)
	// and (0,1,−1): Σxy = −3, Σxx = 42/9, Σyy = 2: r = −9/√84.
	near("pointwise reference", r.PointRef, -9/math.Sqrt(84))
	if r.RepeatRef.Value != nil || !strings.Contains(r.RepeatRef.TooFew, "repeats") {
		t.Errorf("repeat reference without repeats: %+v", r.RepeatRef)
	}
	// τ_b((1,2,3), (3,1,1)) = (0 − 2)/√(3·2).
	near("kendall reversed", r.KendallRev, -2/math.Sqrt(6))
	if r.KendallRep.Value != nil || r.KendallRep.TooFew == "" {
		t.Errorf("kendall repeat without repeats: %+v", r.KendallRep)
	}
	// Spearman: pointwise (1,2,3) → 1; one order → 1; two orders
	// (2,1.5,2) → mid-ranks (2.5,1,2.5) against (1,2,3): 0.
	want := []struct {
		orders int
		rho    float64
	}{{0, 1}, {1, 1}, {2, 0}}
	if len(r.Spearman) != 3 {
		t.Fatalf("spearman rows %+v", r.Spearman)
	}
	for i, w := range want {
		s := r.Spearman[i]
		if s.Orders != w.orders || s.Spearman == nil || math.Abs(*s.Spearman-w.rho) > 1e-12 {
			t.Errorf("spearman row %d = %+v, want orders %d ρ %v", i, s, w.orders, w.rho)
		}
		if i > 0 && (s.GainVsPoint == nil || math.Abs(*s.GainVsPoint-(w.rho-1)) > 1e-12) {
			t.Errorf("row %d gain %v, want %v", i, s.GainVsPoint, w.rho-1)
		}
	}
	if r.Spearman[0].CallsPerCtx != 3 || r.Spearman[2].CallsPerCtx != 2 {
		t.Errorf("calls per context %v, %v", r.Spearman[0].CallsPerCtx, r.Spearman[2].CallsPerCtx)
	}
}

// Below the minimum number of contexts every estimate says too few
// instead of giving a number.
func TestOrderDiagnosticsTooFew(t *testing.T) {
	d := &Data{Units: []string{"x:-"}, Signs: []float64{-1}, Contexts: []Context{handContext("a"), handContext("b")}}
	r, err := Diagnostics(d, Options{Bootstrap: 10, MinContexts: 5})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]Stat{"curve": r.Curve[0].Stat, "point": r.PointRef, "kendall": r.KendallRev} {
		if v.Value != nil || !strings.Contains(v.TooFew, "2 usable contexts, needs 5") {
			t.Errorf("%s: %+v", name, v)
		}
	}
	for _, s := range r.Spearman {
		if s.Spearman != nil || s.TooFew == "" {
			t.Errorf("spearman %+v", s)
		}
	}
	if _, err := Diagnostics(&Data{Units: []string{"a"}}, Options{}); err == nil {
		t.Error("units without signs accepted")
	}
}

// Property: with no order effect (every order scores alike, repeats
// alike) the averaged-order correlation is 1 at every M, and τ is 1.
func TestOrderDiagnosticsNoOrderEffect(t *testing.T) {
	d := &Data{Units: []string{"x:+"}, Signs: []float64{1}}
	for c := range 6 {
		base := []float64{1, 4, 2, float64(3 + c)}
		probe := []float64{2, 4, 5, 1}
		ctx := Context{ID: string(rune('a' + c)), Human: []float64{1, 2, 3, 4}}
		ctx.Probe = [][][][]float64{nil}
		for range 8 {
			ctx.Base = append(ctx.Base, [][]float64{base, base})
			ctx.Probe[0] = append(ctx.Probe[0], [][]float64{probe, probe})
		}
		d.Contexts = append(d.Contexts, ctx)
	}
	r, err := Diagnostics(d, Options{Bootstrap: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Curve) != 3 {
		t.Fatalf("curve at M = 1, 2, 4 expected, got %+v", r.Curve)
	}
	for _, p := range append(r.Curve, CurvePoint{Orders: -1, Stat: r.RepeatRef}) {
		if p.Value == nil || math.Abs(*p.Value-1) > 1e-12 {
			t.Errorf("M %d: %+v, want 1", p.Orders, p.Stat)
		}
	}
	if r.KendallRev.Value == nil || *r.KendallRev.Value != 1 || *r.KendallRep.Value != 1 || *r.KendallGap.Value != 0 {
		t.Errorf("kendall %+v %+v %+v", r.KendallRev, r.KendallRep, r.KendallGap)
	}
	if r.Spearman[0].TooFew == "" {
		t.Error("spearman without pointwise scores gave a number")
	}
}
