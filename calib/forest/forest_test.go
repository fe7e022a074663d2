package forest

import (
	"context"
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func fitForestT(t testing.TB, x []float64, n, p int, y []float64, o Options) *Forest {
	t.Helper()
	f, err := Fit(context.Background(), x, n, p, y, o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// bothSearches runs test with the histogram search on features of few
// values (the default) and with sorted rows for every feature.
func bothSearches(t *testing.T, test func(t *testing.T)) {
	t.Run("histogram", test)
	defer func(b int) { histBins = b }(histBins)
	histBins = 0
	t.Run("sorted", test)
}

// One tree, no bootstrap: the CART splits and midpoint thresholds by hand.
func TestForestHandTree(t *testing.T) { bothSearches(t, testForestHandTree) }

func testForestHandTree(t *testing.T) {
	one := Options{Trees: 1, NoBootstrap: true}
	// y = 0 0 10 20 at x = 1 2 3 4. Root candidates S_L²/W_L + S_R²/W_R:
	// after x=1: 0 + 30²/3 = 300; after 2: 0 + 30²/2 = 450; after 3:
	// 10²/3 + 20² = 433.3. So x ≤ 2.5, then the right node {10, 20}
	// splits at 3.5.
	x := []float64{1, 2, 3, 4}
	y := []float64{0, 0, 10, 20}
	f := fitForestT(t, x, 4, 1, y, one)
	tr := f.trees[0]
	if tr[0].feat != 0 || tr[0].thr != 2.5 {
		t.Fatalf("root split x ≤ %v on %d, want x ≤ 2.5 on 0", tr[0].thr, tr[0].feat)
	}
	if len(tr) != 5 {
		t.Fatalf("%d nodes, want 5", len(tr))
	}
	for _, c := range []struct{ x, want float64 }{{-5, 0}, {1, 0}, {2.5, 0}, {2.51, 10}, {3.5, 10}, {3.6, 20}, {100, 20}} {
		if got := f.Predict([]float64{c.x}); got != c.want {
			t.Errorf("Predict(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	// MinLeaf 2: the right node has 2 rows < 2·MinLeaf, a leaf of mean 15.
	one.MinLeaf = 2
	f = fitForestT(t, x, 4, 1, y, one)
	if got := f.Predict([]float64{4}); got != 15 {
		t.Errorf("MinLeaf 2: Predict(4) = %v, want 15", got)
	}
	// MaxDepth 1: a stump.
	one.MinLeaf, one.MaxDepth = 0, 1
	f = fitForestT(t, x, 4, 1, y, one)
	if got := f.Predict([]float64{4}); got != 15 || len(f.trees[0]) != 3 {
		t.Errorf("MaxDepth 1: Predict(4) = %v with %d nodes, want 15 with 3", got, len(f.trees[0]))
	}
	one.MaxDepth = 0

	// Values closer than 1e-7 are never split between: x = 1, 1+1e-8, 2.
	f = fitForestT(t, []float64{1, 1 + 1e-8, 2}, 3, 1, []float64{0, 5, 5}, one)
	if got := f.Predict([]float64{1}); got != 2.5 {
		t.Errorf("near-tie: Predict(1) = %v, want 2.5 (the two near-equal rows in one leaf)", got)
	}
	// The second feature separates y perfectly, the first does not.
	f = fitForestT(t, []float64{0, 3, 1, 4, 0, 5, 1, 6}, 4, 2, []float64{1, 1, 2, 2}, one)
	if tr := f.trees[0]; tr[0].feat != 1 || tr[0].thr != 4.5 || len(tr) != 3 {
		t.Errorf("two features: root x%d ≤ %v with %d nodes, want x1 ≤ 4.5 with 3", tr[0].feat, tr[0].thr, len(tr))
	}
	// MaxFeatures 1: a feature constant in a node (to 1e-7) is skipped
	// without counting, so every node searches x1 too, and the tree
	// fits y exactly whichever feature the shuffle offers first.
	for _, eps := range []float64{0, 1e-9} {
		n := 12
		xs, ys := make([]float64, 2*n), make([]float64, n)
		for i := range n {
			xs[2*i], xs[2*i+1], ys[i] = 1+eps*float64(i), float64(i*i), float64(i%5)
		}
		for seed := range uint64(4) {
			f = fitForestT(t, xs, n, 2, ys, Options{Trees: 1, Seed: seed, NoBootstrap: true, MaxFeatures: 1})
			for i := range n {
				if got := f.Predict(xs[2*i : 2*i+2]); got != ys[i] {
					t.Fatalf("MaxFeatures 1, x0 spread %g, seed %d: Predict(row %d) = %v, want %v", eps, seed, i, got, ys[i])
				}
			}
		}
	}
	// Adjacent floats 1e10 apart by 1.9e-6: the midpoint rounds to one of
	// them, and the threshold is the lower value.
	a := 1e10
	b := math.Nextafter(a, math.Inf(1))
	f = fitForestT(t, []float64{a, b}, 2, 1, []float64{3, 4}, one)
	if tr := f.trees[0]; tr[0].thr != a || f.Predict([]float64{a}) != 3 || f.Predict([]float64{b}) != 4 {
		t.Errorf("adjacent floats: threshold %v, predictions %v %v; want %v, 3, 4", tr[0].thr, f.Predict([]float64{a}), f.Predict([]float64{b}), a)
	}
}

// A step function with both sides in every bootstrap sample: far from the
// step every tree predicts the side's value exactly.
func TestForestStep(t *testing.T) {
	n := 40
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = float64(i)
		if i >= n/2 {
			y[i] = 1
		}
	}
	f := fitForestT(t, x, n, 1, y, DefaultOptions())
	if f.Trees() != 300 || f.Features() != 1 {
		t.Fatalf("Trees %d Features %d", f.Trees(), f.Features())
	}
	for _, c := range []struct{ x, want float64 }{{-1, 0}, {0, 0}, {15, 0}, {25, 1}, {39, 1}, {1e6, 1}} {
		if got := f.Predict([]float64{c.x}); got != c.want {
			t.Errorf("Predict(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if got := f.Predict([]float64{19.5}); got <= 0 || got >= 1 {
		t.Errorf("Predict(19.5) = %v, want strictly between the steps (thresholds vary by bootstrap)", got)
	}
}

// refTree is an independent, naive CART on unit-weight rows, following
// Fit's documentation: at each node the features are visited in the
// documented order drawn from g (all features but the dead ones when
// maxFeat is p, else all p with the dead ones counted), every split
// between values more than 1e-7 apart is scored by the SSE of each side
// recomputed from scratch, and the smallest total SSE wins, the first
// visited on ties. depth < 0: unlimited.
func refTree(x [][]float64, y []float64, rows []int, minLeaf, depth int, g *rand.PCG, maxFeat int, dead []bool) func([]float64) float64 {
	mean := func(r []int) float64 {
		s := 0.0
		for _, i := range r {
			s += y[i]
		}
		return s / float64(len(r))
	}
	sse := func(r []int) float64 {
		m, s := mean(r), 0.0
		for _, i := range r {
			s += (y[i] - m) * (y[i] - m)
		}
		return s
	}
	mu := mean(rows)
	leaf := func([]float64) float64 { return mu }
	if depth == 0 || len(rows) < 2*minLeaf || sse(rows)/float64(len(rows)) <= 0x1p-52 {
		return leaf
	}
	p := len(x[0])
	var pool []int
	for f := range p {
		if maxFeat < p || !dead[f] {
			pool = append(pool, f)
		}
	}
	if !slices.Contains(dead, false) {
		return leaf
	}
	childDead := slices.Clone(dead)
	best, bf, bthr := math.Inf(1), -1, 0.0
	visited, searched := 0, 0
	for j := 0; j < len(pool) && (visited < maxFeat || searched == 0); j++ {
		hi, _ := bits.Mul64(g.Uint64(), uint64(len(pool)-j))
		pool[j], pool[j+int(hi)] = pool[j+int(hi)], pool[j]
		f := pool[j]
		visited++
		if dead[f] {
			continue
		}
		r := slices.Clone(rows)
		slices.SortStableFunc(r, func(a, b int) int { return cmpF(x[a][f], x[b][f]) })
		if x[r[len(r)-1]][f] <= x[r[0]][f]+1e-7 {
			childDead[f] = true
			continue
		}
		searched++
		for k := 1; k < len(r); k++ {
			lo, hi := x[r[k-1]][f], x[r[k]][f]
			if hi <= lo+1e-7 || k < minLeaf || len(r)-k < minLeaf {
				continue
			}
			if s := sse(r[:k]) + sse(r[k:]); s < best-1e-9 {
				best, bf, bthr = s, f, (lo+hi)/2
			}
		}
	}
	if bf < 0 {
		return leaf
	}
	var l, r []int
	for _, i := range rows {
		if x[i][bf] <= bthr {
			l = append(l, i)
		} else {
			r = append(r, i)
		}
	}
	lt := refTree(x, y, l, minLeaf, depth-1, g, maxFeat, childDead)
	rt := refTree(x, y, r, minLeaf, depth-1, g, maxFeat, childDead)
	return func(q []float64) float64 {
		if q[bf] <= bthr {
			return lt(q)
		}
		return rt(q)
	}
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// A one-tree forest equals the naive CART, bootstrap sample and visit
// order drawn by the documented rules (rand.NewPCG(seed, 2³²), indices
// ⌊u·n/2⁶⁴⌋, then the nodes depth first, left before right): a row drawn
// c times weighs as c copies of it. With one feature the trees must agree
// everywhere. With several, nodes may have ties across features that
// rounding breaks differently in the two (the same partition summed in
// another order): there the trees stop at depth 4 and must agree on every
// row of the sample, which tied splits partition alike.
func TestForestMatchesNaiveCART(t *testing.T) { bothSearches(t, testForestMatchesNaiveCART) }

func testForestMatchesNaiveCART(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for trial := range 24 {
		n, p := 30+r.IntN(60), 1+trial%4
		maxFeat := p
		if p > 2 {
			maxFeat = 1 + (trial/2)%p
		}
		depth := -1
		if p > 1 {
			depth = 4
		}
		minLeaf := 1 + (trial/4)%3
		x := make([]float64, n*p)
		rows := make([][]float64, n)
		y := make([]float64, n)
		for i := range n {
			for f := range p {
				v := r.NormFloat64()
				if f%2 == 1 {
					v = float64(r.IntN(2 + trial%4)) // discrete, ties; soon constant
				}
				x[i*p+f] = v
			}
			rows[i] = x[i*p : (i+1)*p]
			y[i] = math.Sin(2*x[i*p]) + 0.3*r.NormFloat64()
		}
		seed := uint64(100 + trial)
		for _, boot := range []bool{false, true} {
			o := Options{Trees: 1, Seed: seed, NoBootstrap: !boot, MinLeaf: minLeaf, MaxDepth: max(depth, 0), MaxFeatures: maxFeat}
			f := fitForestT(t, x, n, p, y, o)
			var sample []int
			g := rand.NewPCG(seed, 1<<32)
			if boot {
				for range n {
					hi, _ := bits.Mul64(g.Uint64(), uint64(n))
					sample = append(sample, int(hi))
				}
			} else {
				for i := range n {
					sample = append(sample, i)
				}
			}
			// Copies of a row weigh as the row for the split search, but
			// MinLeaf counts distinct rows: compare only when it is 1.
			if boot && minLeaf > 1 {
				continue
			}
			ref := refTree(rows, y, sample, minLeaf, depth, g, maxFeat, make([]bool, p))
			var queries [][]float64
			for _, i := range sample {
				queries = append(queries, rows[i])
			}
			for range 200 * min(1, 2-p) {
				q := []float64{1.5 * r.NormFloat64()}
				queries = append(queries, q, []float64{x[r.IntN(n)]})
			}
			for _, q := range queries {
				if got, want := f.Predict(q), ref(q); math.Abs(got-want) > 1e-9 {
					t.Fatalf("trial %d (n %d, p %d, MinLeaf %d, MaxFeatures %d) bootstrap %v: Predict(%v) = %v, naive CART %v",
						trial, n, p, minLeaf, maxFeat, boot, q, got, want)
				}
			}
		}
	}
}

func friedman(r *rand.Rand, n, p int) (x, y []float64) {
	x, y = make([]float64, n*p), make([]float64, n)
	for i := range n {
		row := x[i*p : (i+1)*p]
		for j := range row {
			row[j] = r.Float64()
		}
		y[i] = 10*math.Sin(math.Pi*row[0]*row[1]) + 20*(row[2]-0.5)*(row[2]-0.5) + 10*row[3] + 5*row[4]
	}
	return x, y
}

func rsquared(f *Forest, x, y []float64) float64 {
	pred := f.PredictRows(nil, x)
	mean := 0.0
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	var ssr, sst float64
	for i, v := range y {
		ssr += (v - pred[i]) * (v - pred[i])
		sst += (v - mean) * (v - mean)
	}
	return 1 - ssr/sst
}

// Friedman #1 without noise and without distractors (the forest searches
// every feature, so five features keep it quick): out-of-sample R² > 0.9.
func TestForestLearnsNonlinear(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	x, y := friedman(r, 1000, 5)
	xt, yt := friedman(r, 500, 5)
	o := DefaultOptions()
	o.Trees = 60
	f := fitForestT(t, x, 1000, 5, y, o)
	if r2 := rsquared(f, xt, yt); r2 < 0.9 {
		t.Errorf("out-of-sample R² %.3f, want > 0.9", r2)
	} else {
		t.Logf("out-of-sample R² %.3f", r2)
	}
	// A forest of stumps cannot fit it: the test can fail.
	o.MaxDepth = 1
	if r2 := rsquared(fitForestT(t, x, 1000, 5, y, o), xt, yt); r2 > 0.6 {
		t.Errorf("stumps reach R² %.3f; the check above would not discriminate", r2)
	}
}

func TestForestDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n, p := 300, 6
	x, y := friedman(r, n, p)
	for i := range x { // discrete features: many ties, many equal-gain splits
		if i%p >= 3 {
			x[i] = math.Round(4 * x[i])
		}
	}
	o := Options{Trees: 40, Seed: 42, Workers: 1}
	a := fitForestT(t, x, n, p, y, o)
	o.Workers = 4
	b := fitForestT(t, x, n, p, y, o)
	o.MaxFeatures = 2
	c := fitForestT(t, x, n, p, y, o)
	o.MaxFeatures, o.Seed = 0, 43
	d := fitForestT(t, x, n, p, y, o)
	xt, _ := friedman(r, 200, p)
	pa, pb := a.PredictRows(nil, xt), b.PredictRows(nil, xt)
	for i := range pa {
		if math.Float64bits(pa[i]) != math.Float64bits(pb[i]) {
			t.Fatalf("row %d: Workers 1 gives %v, Workers 4 %v", i, pa[i], pb[i])
		}
		if v := a.Predict(xt[i*p : (i+1)*p]); math.Float64bits(v) != math.Float64bits(pa[i]) {
			t.Fatalf("row %d: Predict %v, PredictRows %v", i, v, pa[i])
		}
	}
	if got := a.PredictRows([]float64{7}, xt[:2*p]); len(got) != 3 || got[0] != 7 || got[1] != pa[0] || got[2] != pa[1] {
		t.Errorf("PredictRows appending to [7]: %v", got)
	}
	for i := range a.trees {
		if !slices.Equal(a.trees[i], b.trees[i]) {
			t.Fatalf("tree %d differs between Workers 1 and 4", i)
		}
	}
	if slices.Equal(pa, c.PredictRows(nil, xt)) || slices.Equal(pa, d.PredictRows(nil, xt)) {
		t.Error("MaxFeatures 2 or seed 43 gives the same predictions as the default")
	}
}

// The two searches grow the same trees, bit for bit.
func TestForestSearchesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	n, p := 400, 8
	x, y := forestBenchDataR(r, n, p)
	o := Options{Trees: 10, Seed: 5, MaxFeatures: 3}
	a := fitForestT(t, x, n, p, y, o)
	defer func(b int) { histBins = b }(histBins)
	histBins = 0
	b := fitForestT(t, x, n, p, y, o)
	for i := range a.trees {
		ta, tb := a.trees[i], b.trees[i]
		if len(ta) != len(tb) {
			t.Fatalf("tree %d: %d nodes by histogram, %d by sorted rows", i, len(ta), len(tb))
		}
		for j := range ta {
			if ta[j].feat != tb[j].feat || ta[j].thr != tb[j].thr || ta[j].left != tb[j].left || ta[j].val != tb[j].val {
				t.Fatalf("tree %d node %d: %+v by histogram, %+v by sorted rows", i, j, ta[j], tb[j])
			}
		}
	}
}

func TestForestConstantTarget(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, 50*3)
	for i := range x {
		x[i] = r.Float64()
	}
	y := make([]float64, 50)
	for i := range y {
		y[i] = 0.1 // not exact in binary: a variance of rounding noise
	}
	f := fitForestT(t, x, 50, 3, y, Options{Trees: 20, Seed: 1})
	for i, tr := range f.trees {
		if len(tr) != 1 {
			t.Fatalf("tree %d has %d nodes for a constant target", i, len(tr))
		}
	}
	for _, q := range [][]float64{{0, 0, 0}, {1, 1, 1}, {0.3, -4, 9}} {
		if got := f.Predict(q); math.Abs(got-0.1) > 1e-15 {
			t.Errorf("Predict(%v) = %v, want 0.1", q, got)
		}
	}
	// Constant features: every tree is a leaf too.
	xc := make([]float64, 50*3)
	yv := make([]float64, 50)
	for i := range yv {
		yv[i] = float64(i)
	}
	f = fitForestT(t, xc, 50, 3, yv, Options{Trees: 5})
	if len(f.trees[0]) != 1 {
		t.Errorf("constant features: %d nodes", len(f.trees[0]))
	}
}

func TestForestErrors(t *testing.T) {
	ok := DefaultOptions()
	x := []float64{1, 2, 3, 4, 5, 6}
	y := []float64{1, 2, 3}
	cases := []struct {
		name string
		x    []float64
		n, p int
		y    []float64
		o    Options
		want string
	}{
		{"one row", x[:2], 1, 2, y[:1], ok, "at least 2 rows"},
		{"no feature", nil, 3, 0, y, ok, "at least 1 feature"},
		{"short x", x[:5], 3, 2, y, ok, "want n×p"},
		{"short y", x, 3, 2, y[:2], ok, "want n = 3"},
		{"no tree", x, 3, 2, y, Options{}, "at least 1 tree"},
		{"negative", x, 3, 2, y, Options{Trees: 1, MinLeaf: -1}, "must not be negative"},
		{"negative workers", x, 3, 2, y, Options{Trees: 1, Workers: -1}, "must not be negative"},
		{"max features", x, 3, 2, y, Options{Trees: 1, MaxFeatures: 3}, "exceeds the 2 features"},
		{"NaN x", []float64{1, 2, math.NaN(), 4, 5, 6}, 3, 2, y, ok, "feature 0 of row 1 is NaN"},
		{"Inf y", x, 3, 2, []float64{1, math.Inf(-1), 3}, ok, "target of row 1 is -Inf"},
	}
	for _, c := range cases {
		f, err := Fit(context.Background(), c.x, c.n, c.p, c.y, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || f != nil {
			t.Errorf("%s: %v, %v; want an error with %q", c.name, f, err, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Fit(ctx, x, 3, 2, y, ok); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	f := fitForestT(t, x, 3, 2, y, Options{Trees: 1})
	for _, row := range [][]float64{{1}, {1, 2, 3}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Predict(%v) did not panic", row)
				}
			}()
			f.Predict(row)
		}()
	}
}

// FuzzFitForest fits small forests on arbitrary bytes: no panic, and every
// prediction lies within the targets' range (a leaf is a weighted mean).
func FuzzFitForest(f *testing.F) {
	f.Add([]byte{3, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8}, uint64(1), uint8(0))
	f.Add([]byte{5, 1, 9, 9, 9, 9, 9, 1, 2, 3, 4, 5}, uint64(2), uint8(1))
	f.Add([]byte{8, 3, 1, 1, 1, 2, 2, 2, 3, 3, 3, 200, 7, 0, 0, 0, 5, 5, 5, 5}, uint64(3), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, knobs uint8) {
		if len(data) < 2 {
			return
		}
		n, p := 2+int(data[0])%30, 1+int(data[1])%5
		data = data[2:]
		at := func(i int) float64 {
			if len(data) == 0 {
				return 0
			}
			return float64(int(data[i%len(data)])-128) / 16
		}
		x, y := make([]float64, n*p), make([]float64, n)
		for i := range x {
			x[i] = at(i)
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range y {
			y[i] = at(n*p + 3*i)
			lo, hi = min(lo, y[i]), max(hi, y[i])
		}
		o := Options{Trees: 1 + int(knobs%4), Seed: seed, MinLeaf: int(knobs>>2) % 3,
			MaxDepth: int(knobs>>4) % 4, NoBootstrap: knobs&0x40 != 0, Workers: 2}
		if knobs&0x80 != 0 {
			o.MaxFeatures = 1
		}
		fr, err := Fit(context.Background(), x, n, p, y, o)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n + 3 {
			q := make([]float64, p)
			for j := range q {
				q[j] = at(7*i+j) + 0.01
			}
			v := fr.Predict(q)
			if v < lo-1e-12*(1+math.Abs(lo)) || v > hi+1e-12*(1+math.Abs(hi)) {
				t.Fatalf("Predict(%v) = %v outside the targets' range [%v, %v]", q, v, lo, hi)
			}
		}
	})
}
