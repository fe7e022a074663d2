package calib

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

var forestSink float64

// forestBenchData mimics a SAJA design on SummEval: 1,600 candidates, 28
// criterion ratings on a 1–5 scale (mean-imputed cells make a few
// non-integers), a human rating depending on a handful of them.
func forestBenchData(n, p int) (x, y []float64) {
	r := rand.New(rand.NewPCG(16, 28))
	x, y = make([]float64, n*p), make([]float64, n)
	for i := range n {
		q := r.NormFloat64()
		row := x[i*p : (i+1)*p]
		for j := range row {
			v := math.Round(3 + q + 0.8*r.NormFloat64())
			row[j] = min(5, max(1, v))
			if r.IntN(50) == 0 {
				row[j] = 3.17 // an imputed cell
			}
		}
		y[i] = q + 0.3*r.NormFloat64()
	}
	return x, y
}

// BenchmarkForest1600x28 fits the default forest (300 trees, all
// features, bootstrap) on SummEval size with every core.
func BenchmarkForest1600x28(b *testing.B) {
	n, p := 1600, 28
	x, y := forestBenchData(n, p)
	o := DefaultForestOptions()
	b.ReportAllocs()
	for b.Loop() {
		f, err := FitForest(context.Background(), x, n, p, y, o)
		if err != nil {
			b.Fatal(err)
		}
		forestSink += f.Predict(x[:p])
	}
}

// BenchmarkForestPredict1600x28 predicts 1,600 rows with the default
// forest.
func BenchmarkForestPredict1600x28(b *testing.B) {
	n, p := 1600, 28
	x, y := forestBenchData(n, p)
	f, err := FitForest(context.Background(), x, n, p, y, DefaultForestOptions())
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]float64, 0, n)
	b.ReportAllocs()
	for b.Loop() {
		dst = f.PredictRows(dst[:0], x)
		forestSink += dst[0]
	}
}
