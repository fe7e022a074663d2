package calib

import (
	"math"
	"slices"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"
	"github.com/prism-eval/prism/model"
	"gonum.org/v1/gonum/mat"
)

// designOf builds a design from synth data, failing the test on error.
func designOf(t testing.TB, nctx, ncand, K int, seed uint64) *Design {
	t.Helper()
	rows, labels := calibtest.Synth(nctx, ncand, K, seed)
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// denseOf returns J̃, v and y* of the contexts ctxs as gonum matrices.
func denseOf(d *Design, ctxs []int) (J *mat.Dense, v, y *mat.VecDense) {
	q := d.Q()
	var jd, vd, yd []float64
	for _, g := range ctxs {
		for r := d.Off[g]; r < d.Off[g+1]; r++ {
			jd = append(jd, d.JC[r*q:(r+1)*q]...)
			vd = append(vd, d.V[r])
			yd = append(yd, d.YStar[r])
		}
	}
	n := len(vd)
	return mat.NewDense(n, q, jd), mat.NewVecDense(n, vd), mat.NewVecDense(n, yd)
}

// ridgeSolve solves (XᵀX + diag(pen)) θ = Xᵀt densely, the reference the
// eigen path is checked against.
func ridgeSolve(t *testing.T, X *mat.Dense, tgt *mat.VecDense, pen []float64) []float64 {
	t.Helper()
	_, p := X.Dims()
	var A mat.Dense
	A.Mul(X.T(), X)
	for i := 0; i < p; i++ {
		A.Set(i, i, A.At(i, i)+pen[i])
	}
	var b, th mat.VecDense
	b.MulVec(X.T(), tgt)
	if err := th.SolveVec(&A, &b); err != nil {
		t.Fatal(err)
	}
	return th.RawVector().Data
}

// solveAt solves mp at γ into a new rule, failing the test on error.
func solveAt(t testing.TB, mp *methodPath, gamma float64, q, K int) *rule {
	t.Helper()
	r := newRule(q, K)
	if err := mp.at(gamma, r); err != nil {
		t.Fatal(err)
	}
	return r
}

func fitterOn(d *Design, ctxs []int) *fitter {
	f := newFitter(d, DefaultOptions())
	f.sumExcept(ctxs, 0, 0)
	return f
}

func allContexts(d *Design) []int {
	c := make([]int, len(d.Contexts))
	for i := range c {
		c[i] = i
	}
	return c
}

// TestHandPRISM checks PRISM on a case small enough to do by hand: one
// context probe, three candidates, s0 = (1, 2, 3), s(pc) = (2, 2, 2) so
// J = (1, 0, −1), humans y = (3, 2, 1).
//
//	v = C s0 = (−1, 0, 1), J̃ = (1, 0, −1), C y = (1, 0, −1);
//	‖v‖ = ‖C y‖ = √2, so y* = (1, 0, −1) and d = v − y* = (−2, 0, 2);
//	J̃ᵀJ̃ = 2, J̃ᵀd = −4, μ = γ·2/1, β = −4/(2 + 2γ).
//
// At γ = 1, β = −1 and ŷ = s0 − J̃β = (2, 2, 2).
func TestHandPRISM(t *testing.T) {
	var rows []model.ScoreRow
	var labels []model.Label
	s0 := []float64{1, 2, 3}
	y := []float64{3, 2, 1}
	for i, id := range []string{"a", "b", "c"} {
		rows = append(rows,
			model.ScoreRow{Context: "g", Candidate: id, Probe: "baseline", Score: s0[i]},
			model.ScoreRow{Context: "g", Candidate: id, Probe: "ctx:expert", Score: 2})
		labels = append(labels, model.Label{Context: "g", Candidate: id, Human: y[i]})
	}
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := fitterOn(d, []int{0})
	mp, ok := newMethodPath(PRISM, f.sum, 0)
	if !ok {
		t.Fatal("factorization failed")
	}
	for _, gamma := range []float64{1e-3, 1, 10} {
		r := solveAt(t, mp, gamma, 1, 0)
		want := -4 / (2 + 2*gamma)
		if r.alpha != 1 || math.Abs(r.beta[0]-want) > 1e-14 {
			t.Errorf("γ=%v: α, β = %v, %v; want 1, %v", gamma, r.alpha, r.beta[0], want)
		}
	}
	for i, p := range f.predict(0, solveAt(t, mp, 1, 1, 0), make([]float64, 3)) {
		if math.Abs(p-2) > 1e-14 {
			t.Errorf("ŷ[%d] = %v, want 2", i, p)
		}
	}
}

// TestPathsMatchDenseSolves checks every method's eigen path against a
// direct dense solve of its normal equations (docs/protocol.md §4) over the grid.
func TestPathsMatchDenseSolves(t *testing.T) {
	d := designOf(t, 12, 6, 3, 5)
	train := []int{0, 2, 3, 5, 7, 8, 9, 11}
	f := fitterOn(d, train)
	J, v, y := denseOf(d, train)
	n, q := J.Dims()
	K := len(d.Attrs)
	frob := mat.Norm(J, 2)
	frob *= frob
	for _, gamma := range DefaultGammas {
		mu := gamma * frob / float64(q)

		// PRISM: ridge of d = v − y* on J̃.
		var dvec mat.VecDense
		dvec.SubVec(v, y)
		pen := make([]float64, q)
		for i := range pen {
			pen[i] = mu
		}
		want := ridgeSolve(t, J, &dvec, pen)
		mp, _ := newMethodPath(PRISM, f.sum, K)
		calibtest.AssertClose(t, "PRISM β", solveAt(t, mp, gamma, q, K).beta, want, 1e-9)

		// α-PRISM: X = [v, −J̃], θ = (α, β), penalty diag(0, μ…).
		X := mat.NewDense(n, q+1, nil)
		for r := 0; r < n; r++ {
			X.Set(r, 0, v.AtVec(r))
			for c := 0; c < q; c++ {
				X.Set(r, c+1, -J.At(r, c))
			}
		}
		want = ridgeSolve(t, X, y, append([]float64{0}, pen...))
		ap, _ := newMethodPath(AlphaPRISM, f.sum, K)
		r := solveAt(t, ap, gamma, q, K)
		calibtest.AssertClose(t, "α-PRISM α", []float64{r.alpha}, want[:1], 1e-9)
		calibtest.AssertClose(t, "α-PRISM β", r.beta, want[1:], 1e-9)

		// Half: ridge of d on Õk = (J̃k+ + J̃k−)/2, μ from ‖Õ‖²_F/K.
		O := mat.NewDense(n, K, nil)
		for r := 0; r < n; r++ {
			for k := 0; k < K; k++ {
				O.Set(r, k, (J.At(r, 2*k)+J.At(r, 2*k+1))/2)
			}
		}
		fo := mat.Norm(O, 2)
		hp := make([]float64, K)
		for i := range hp {
			hp[i] = gamma * fo * fo / float64(K)
		}
		want = ridgeSolve(t, O, &dvec, hp)
		hpath, _ := newMethodPath(Half, f.sum, K)
		r = solveAt(t, hpath, gamma, q, K)
		calibtest.AssertClose(t, "Half δ", hpath.coef, want, 1e-9)
		calibtest.AssertClose(t, "Half rule δ", r.delta, want, 1e-9)
	}
}

// TestAlphaPinnedIsPRISM: when y* = v − J̃β₀ exactly (a judge whose only
// error is linear in the probes, α = 1 true), α-PRISM finds α = 1 and the
// same β as PRISM as γ → 0; and minimising α-PRISM's loss with α pinned to
// 1 is PRISM's problem (checked with the dense solve).
func TestAlphaPinnedIsPRISM(t *testing.T) {
	d := designOf(t, 10, 6, 2, 9)
	q := d.Q()
	beta0 := []float64{0.3, -0.2, 0.5, 0.1}
	for r := 0; r < d.Rows(); r++ {
		var dot float64
		for c := 0; c < q; c++ {
			dot += d.JC[r*q+c] * beta0[c]
		}
		d.YStar[r] = d.V[r] - dot
	}
	all := allContexts(d)
	f := fitterOn(d, all)
	p, _ := newMethodPath(PRISM, f.sum, 2)
	a, _ := newMethodPath(AlphaPRISM, f.sum, 2)
	gamma := 1e-12
	bp := solveAt(t, p, gamma, q, 2).beta
	ra := solveAt(t, a, gamma, q, 2)
	if math.Abs(ra.alpha-1) > 1e-8 {
		t.Errorf("α = %v, want 1", ra.alpha)
	}
	calibtest.AssertClose(t, "PRISM β vs β₀", bp, beta0, 1e-8)
	calibtest.AssertClose(t, "α-PRISM β vs PRISM β", ra.beta, bp, 1e-8)

	// Pinned: minimise ‖1·v − J̃β − y*‖² + μ‖β‖² densely at γ = 1.
	J, v, y := denseOf(d, all)
	var dv mat.VecDense
	dv.SubVec(v, y)
	frob := mat.Norm(J, 2)
	pen := make([]float64, q)
	for i := range pen {
		pen[i] = frob * frob / float64(q)
	}
	calibtest.AssertClose(t, "α pinned to 1 vs PRISM", solveAt(t, p, 1, q, 2).beta, ridgeSolve(t, J, &dv, pen), 1e-9)
}

// TestLargeGammaIsVanilla: as γ → ∞, β → 0 and PRISM (and α-PRISM with
// α > 0) rank every context as the baseline does.
func TestLargeGammaIsVanilla(t *testing.T) {
	d := designOf(t, 10, 8, 3, 3)
	f := fitterOn(d, allContexts(d))
	for _, m := range methodsFor(DefaultOptions()) {
		mp, _ := newMethodPath(m, f.sum, len(d.Attrs))
		r := solveAt(t, mp, 1e12, d.Q(), len(d.Attrs))
		if r.alpha <= 0 {
			t.Fatalf("%v: α = %v", m, r.alpha)
		}
		for g := range d.Contexts {
			if got, want := f.value(g, r), f.value(g, vanillaRule); got != want {
				t.Errorf("%v context %s: metric %v at γ=1e12, Vanilla %v", m, d.Contexts[g], got, want)
			}
		}
	}
}

// TestZeroResponsesKeepBaseline: a context whose candidates do not move
// under any probe has J̃ = 0 there, so every method predicts s0 exactly
// (α-PRISM: α s0), whatever was learned elsewhere.
func TestZeroResponsesKeepBaseline(t *testing.T) {
	rows, labels := calibtest.Synth(8, 5, 2, 4)
	for i := range rows {
		if rows[i].Context == "c000" && rows[i].Probe != "baseline" {
			rows[i].Score = 0 // overwritten below with the baseline
		}
	}
	s0 := map[string]float64{}
	for _, r := range rows {
		if r.Probe == "baseline" {
			s0[r.Context+"/"+r.Candidate] = r.Score
		}
	}
	for i := range rows {
		if rows[i].Context == "c000" {
			rows[i].Score = s0[rows[i].Context+"/"+rows[i].Candidate]
		}
	}
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := fitterOn(d, []int{1, 2, 3, 4, 5, 6, 7})
	for _, m := range []Method{PRISM, Half} {
		mp, _ := newMethodPath(m, f.sum, len(d.Attrs))
		r := solveAt(t, mp, 1e-3, d.Q(), len(d.Attrs))
		nonzero := false
		for _, b := range append(r.beta, r.delta...) {
			nonzero = nonzero || b != 0
		}
		if !nonzero {
			t.Fatalf("%v: β = 0, the test needs a real correction", m)
		}
		pred := f.predict(0, r, make([]float64, 5))
		for i, p := range pred {
			if p != d.S0[d.Off[0]+i] {
				t.Errorf("%v: ŷ = %v, want s0 = %v", m, p, d.S0[d.Off[0]+i])
			}
		}
	}
}

// TestPackedStatsSumLikeGrams: summing packed statistics over any run of
// contexts gives, bit for bit, what summing their full grams gives (the
// folds' sums before the packing), G symmetric included.
func TestPackedStatsSumLikeGrams(t *testing.T) {
	rows, labels := refStudy() // a context probe, imputed cells: uneven columns
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := newCtxStats(d, make([]float64, len(d.Contexts)*d.Q()))
	q := d.Q()
	if st.stride != q*(q+1)/2+2*q+3 {
		t.Fatalf("stride %d for q = %d", st.stride, q)
	}
	order := Permutation(d.Contexts, 3)
	index := map[string]int{}
	for g, c := range d.Contexts {
		index[c] = g
	}
	full, packed := newGram(q), newGram(q)
	for i, id := range order {
		g := index[id]
		full.add(contextGram(d, d.Off[g], d.Off[g+1]))
		packed.addPacked(st, g)
		if i%17 != 0 && i != len(order)-1 {
			continue
		}
		if !bitsEqual(full.G, packed.G) || !bitsEqual(full.c, packed.c) || !bitsEqual(full.e, packed.e) ||
			!bitsEqual([]float64{full.vv, full.vy, full.yy}, []float64{packed.vv, packed.vy, packed.yy}) || full.rows != packed.rows {
			t.Fatalf("after %d contexts the packed sums differ from the grams' sums", i+1)
		}
		if st.vv(g) != contextGram(d, d.Off[g], d.Off[g+1]).vv {
			t.Fatalf("context %d: vv", g)
		}
	}
	if full.rows != d.Rows() {
		t.Errorf("rows %d, want %d", full.rows, d.Rows())
	}
}

// TestOHRowMatchesCenterOH: a row's Õ and H̃ from ohRow and its context's
// means are centerOH's, bit for bit.
func TestOHRowMatchesCenterOH(t *testing.T) {
	rows, labels := refStudy()
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	K := len(d.Attrs)
	mo, mh, o, h := make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K)
	for g := range d.Contexts {
		lo, hi := d.Off[g], d.Off[g+1]
		oc, hc := make([]float64, (hi-lo)*K), make([]float64, (hi-lo)*K)
		d.centerOH(lo, hi, oc, hc)
		oc2, hc2 := make([]float64, (hi-lo)*K), make([]float64, (hi-lo)*K)
		d.centerOHMeans(lo, hi, oc2, hc2, mo, mh)
		if !bitsEqual(oc, oc2) || !bitsEqual(hc, hc2) {
			t.Fatalf("context %d: centerOHMeans differs from centerOH", g)
		}
		for r := lo; r < hi; r++ {
			d.ohRow(r, mo, mh, o, h)
			i := (r - lo) * K
			if !bitsEqual(o, oc[i:i+K]) || !bitsEqual(h, hc[i:i+K]) {
				t.Fatalf("row %d: ohRow %v %v, centerOH %v %v", r, o, h, oc[i:i+K], hc[i:i+K])
			}
		}
	}
}

func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestCenteredRowMatchesJC: CenteredRow with a context's ColumnMeans is
// Design.JC's row, bit for bit, and DropCentered changes nothing else.
func TestCenteredRowMatchesJC(t *testing.T) {
	rows, labels := refStudy()
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	q := d.Q()
	m, row := make([]float64, q), make([]float64, q)
	for g := range d.Contexts {
		d.ColumnMeans(d.Off[g], d.Off[g+1], m)
		for r := d.Off[g]; r < d.Off[g+1]; r++ {
			d.CenteredRow(r, m, row)
			if !bitsEqual(row, d.JC[r*q:(r+1)*q]) {
				t.Fatalf("row %d: %v, JC %v", r, row, d.JC[r*q:(r+1)*q])
			}
		}
	}
	dd, _, err := BuildDesign(rows, labels, BuildOptions{DropCentered: true})
	if err != nil {
		t.Fatal(err)
	}
	if dd.JC != nil || !bitsEqual(dd.J, d.J) || !bitsEqual(dd.V, d.V) || !bitsEqual(dd.YStar, d.YStar) || !bitsEqual(dd.S0, d.S0) {
		t.Error("DropCentered: the design differs beyond JC")
	}
}

// TestDesignBuilderOnce: Build uses the builder up.
func TestDesignBuilderOnce(t *testing.T) {
	rows, labels := refStudy()
	b := NewDesignBuilder(BuildOptions{})
	for i := range rows {
		if err := b.Add(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := b.Build(labels); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Build(labels); err == nil {
		t.Error("second Build: no error")
	}
	if err := b.Add(&rows[0]); err == nil {
		t.Error("Add after Build: no error")
	}
}
