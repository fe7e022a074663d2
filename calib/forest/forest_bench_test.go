package forest

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
	return forestBenchDataR(rand.New(rand.NewPCG(16, 28)), n, p)
}

func forestBenchDataR(r *rand.Rand, n, p int) (x, y []float64) {
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
	o := DefaultOptions()
	b.ReportAllocs()
	for b.Loop() {
		f, err := Fit(context.Background(), x, n, p, y, o)
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
	f, err := Fit(context.Background(), x, n, p, y, DefaultOptions())
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

// BenchmarkForest5Folds1600x28 is the SAJA head's out-of-fold use on
// SummEval size: five contiguous folds, each fitted on the other four
// (1,280 rows) and predicting its own 320.
func BenchmarkForest5Folds1600x28(b *testing.B) {
	n, p := 1600, 28
	x, y := forestBenchData(n, p)
	bounds := []int{0, n / 5, 2 * n / 5, 3 * n / 5, 4 * n / 5, n} // calib.SplitParts(n, 5) for n divisible by 5
	xs, ys := make([]float64, 0, n*p), make([]float64, 0, n)
	pred := make([]float64, 0, n)
	b.ReportAllocs()
	for b.Loop() {
		pred = pred[:0]
		for k := range 5 {
			lo, hi := bounds[k], bounds[k+1]
			xs = append(append(xs[:0], x[:lo*p]...), x[hi*p:]...)
			ys = append(append(ys[:0], y[:lo]...), y[hi:]...)
			f, err := Fit(context.Background(), xs, n-(hi-lo), p, ys, DefaultOptions())
			if err != nil {
				b.Fatal(err)
			}
			pred = f.PredictRows(pred, x[lo*p:hi*p])
		}
		forestSink += pred[0]
	}
}

// BenchmarkForest1600x28Continuous is BenchmarkForest1600x28 with every
// feature continuous (no value repeats), so every split is searched on
// rows kept sorted rather than by histogram.
func BenchmarkForest1600x28Continuous(b *testing.B) {
	n, p := 1600, 28
	x, y := forestBenchData(n, p)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range x {
		x[i] += 0.1 * r.NormFloat64()
	}
	o := DefaultOptions()
	b.ReportAllocs()
	for b.Loop() {
		f, err := Fit(context.Background(), x, n, p, y, o)
		if err != nil {
			b.Fatal(err)
		}
		forestSink += f.Predict(x[:p])
	}
}
