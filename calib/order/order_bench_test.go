package order

import (
	"math/rand/v2"
	"testing"
)

// orderBenchData is SummEval-sized: 100 contexts × 16 candidates, 8
// orders × 2 repeats, 2 units, and a 2-run pointwise study.
func orderBenchData() *Data {
	g := rand.New(rand.NewPCG(1, 2))
	d := &Data{Units: []string{"length:+", "length:-"}, Signs: []float64{1, -1}}
	const n, K, R, U = 16, 8, 2, 2
	vec := func() []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(1 + g.IntN(10))
		}
		return v
	}
	for range 100 {
		c := Context{Human: vec(), Probe: make([][][][]float64, U), PointProbe: make([][][]float64, U)}
		for k := range K {
			var reps [][]float64
			for range R {
				reps = append(reps, vec())
			}
			c.Base = append(c.Base, reps)
			pos := make([]int, n)
			for i := range pos {
				pos[i] = (i + k) % n
			}
			c.Pos = append(c.Pos, pos)
			for u := range U {
				var pr [][]float64
				for range R {
					pr = append(pr, vec())
				}
				c.Probe[u] = append(c.Probe[u], pr)
			}
		}
		c.Point = [][]float64{vec(), vec()}
		for u := range U {
			c.PointProbe[u] = [][]float64{vec(), vec()}
		}
		d.Contexts = append(d.Contexts, c)
	}
	return d
}

var orderSink *Report

// BenchmarkOrderDiagnostics: the whole report of prism diagnose order on
// a SummEval-sized study with 1,000 resamples (the figure in
// docs/diagnostics.md; the default is 2,000).
func BenchmarkOrderDiagnostics(b *testing.B) {
	d := orderBenchData()
	opts := DefaultOptions()
	opts.Bootstrap = 1000
	b.ReportAllocs()
	for b.Loop() {
		r, err := Diagnostics(d, opts)
		if err != nil {
			b.Fatal(err)
		}
		orderSink = r
	}
}
