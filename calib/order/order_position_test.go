package order

import (
	"math"
	"testing"
)

func posContext(o0, o1 []float64) Context {
	return Context{Human: []float64{1, 2}, Base: [][][]float64{{o0}, {o1}}, Pos: [][]int{{0, 1}, {1, 0}}}
}

// Hand-computed. Order 0 shows (c0, c1), order 1 (c1, c0).
//
// Scores (5, 3) then (4, 4): candidate means 4.5, 3.5; deviations e =
// (0.5, −0.5), (−0.5, 0.5); no call shift; position 0 collects 0.5 twice:
// a(0) = 0.5, a(1) = −0.5, all of Σe² = 1 is position.
//
// Scores (5, 3) then (5, 5): means 5, 4; e = (0, −1), (0, 1); call shifts
// −0.5, +0.5 (Σ = 1 of Σe² = 2); e' = (0.5, −0.5), (−0.5, 0.5): position
// 1 of 2; interaction 0.
func TestOrderPositionsHandComputed(t *testing.T) {
	for _, c := range []struct {
		o0, o1                   []float64
		order, pos, inter, first float64
	}{
		{[]float64{5, 3}, []float64{4, 4}, 0, 1, 0, 0.5},
		{[]float64{5, 3}, []float64{5, 5}, 0.5, 0.5, 0, 0.5},
	} {
		d := &Data{Contexts: []Context{posContext(c.o0, c.o1)}}
		r, err := Diagnostics(d, Options{Bootstrap: 10, MinContexts: 1})
		if err != nil {
			t.Fatal(err)
		}
		p := r.Positions
		if p.FirstShift == nil {
			t.Fatalf("%v %v: %+v", c.o0, c.o1, p)
		}
		got := []float64{*p.OrderShare, *p.PositionShare, *p.InteractionShare, *p.FirstShift}
		want := []float64{c.order, c.pos, c.inter, c.first}
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("%v %v: (order, position, interaction, first) = %v, want %v", c.o0, c.o1, got, want)
				break
			}
		}
	}
}

// Property: the three shares add up to 1; a pure interaction (the
// candidates' scores swap with no position pattern) has no position
// share.
func TestOrderPositionsShares(t *testing.T) {
	n, K := 4, 4
	d := &Data{}
	for c := range 6 {
		oc := Context{Human: make([]float64, n)}
		for k := range K {
			row := make([]float64, n)
			pos := make([]int, n)
			for i := range n {
				row[i] = float64((i*7+k*3+c)%5) + 0.1*float64(i)
				pos[i] = (i + k) % n
			}
			oc.Base = append(oc.Base, [][]float64{row})
			oc.Pos = append(oc.Pos, pos)
		}
		d.Contexts = append(d.Contexts, oc)
	}
	r, err := Diagnostics(d, Options{Bootstrap: 20})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Positions
	if p.OrderShare == nil || math.Abs(*p.OrderShare+*p.PositionShare+*p.InteractionShare-1) > 1e-12 {
		t.Fatalf("shares %+v do not add up to 1", p)
	}
	if p.PositionShareCI == nil || p.Contexts != 6 || len(p.Effects) != n {
		t.Errorf("%+v", p)
	}
	// Without positions: too few, never a number.
	for i := range d.Contexts {
		d.Contexts[i].Pos = nil
	}
	r, _ = Diagnostics(d, Options{Bootstrap: 5})
	if r.Positions.FirstShift != nil || r.Positions.TooFew == "" {
		t.Errorf("without positions: %+v", r.Positions)
	}
}
