package calib

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/prism-eval/prism/model"
)

// tieStudy is a study of 10 contexts × 4 candidates with attributes a and
// b and integer scores. In context "tie", candidates c1 and c3 share s0 = 0
// and the O row (−½, 0) but not their Δ± (c1: a+ −1, a− 0, b± 0; c3:
// a+ 0, a− 1, b± −1, so Δa = (−1, 0) and (0, −1), Δb = (0, 0) and
// (−1, +1)); the humans rank c1 above c3, c0 and c2 sit 12 below and above.
// (s0 = 0 leaves nothing for the rounding of the correction to hide in: at
// s0 = 7 the half-ulp differences of Σ J̃β vanish in s0 − Σ J̃β.) Elsewhere
// s0 is 12 apart between candidates and |Ok| ≤ 1, so the half-difference
// ranking of the other contexts does not move over the γ grid: the inner
// CV score of every γ is the same bitwise, unless a fit breaks the tie of
// c1 and c3, which it must not (docs/protocol.md §4, §5).
func tieStudy() ([]model.ScoreRow, []model.Label) {
	var rows []model.ScoreRow
	var labels []model.Label
	add := func(ctx, cand string, human, s0, ap, am, bp, bm float64) {
		labels = append(labels, model.Label{Context: ctx, Candidate: cand, Human: human})
		for _, p := range []struct {
			probe string
			score float64
		}{{"baseline", s0}, {"a:+", ap}, {"a:-", am}, {"b:+", bp}, {"b:-", bm}} {
			rows = append(rows, model.ScoreRow{Context: ctx, Candidate: cand, Probe: p.probe, Score: p.score})
		}
	}
	// The tie context: c0 and c2 far below and above c1, c3.
	add("tie", "c0", 1, -12, -11, -12, -12, -12)
	add("tie", "c1", 3, 0, -1, 0, 0, 0)
	add("tie", "c2", 4, 12, 12, 12, 13, 11)
	add("tie", "c3", 2, 0, 0, 1, -1, -1)
	rng := rand.New(rand.NewPCG(11, 3))
	unit := func() float64 { return float64(rng.IntN(3) - 1) } // Δ ∈ {−1, 0, 1}
	for g := 0; g < 9; g++ {
		ctx := fmt.Sprintf("g%d", g)
		for i := 0; i < 4; i++ {
			s0 := float64(12*i - 5)
			human := s0 + rng.Float64()*4 - 2
			add(ctx, fmt.Sprintf("c%d", i), human, s0, s0+unit(), s0-unit(), s0+unit(), s0-unit())
		}
	}
	return rows, labels
}

// TestHalfTieSelectsLargestGamma is the regression test of the exact-tie
// defect: two candidates with equal s0 and O rows but different Δ± must
// get bitwise-equal half-difference predictions at every γ, so every γ
// scores the same inner CV value and the tie rule picks the largest γ.
// Computing the prediction from the Δ± columns (½J̃k+δk + ½J̃k−δk) let
// rounding break the tie one way or the other depending on δ.
func TestHalfTieSelectsLargestGamma(t *testing.T) {
	rows, labels := tieStudy()
	opts := DefaultOptions()
	opts.Bootstrap = 10
	r, _, err := Fit(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Folds {
		ff := f.Half
		for gi, s := range ff.CV {
			if s != ff.CV[0] {
				t.Errorf("half fold %d: CV[%d] = %v ≠ CV[0] = %v; the scores of the γ grid should be equal (%v)", f.Fold, gi, s, ff.CV[0], ff.CV)
				break
			}
		}
		if ff.Gamma != 1000 {
			t.Errorf("half fold %d: selected γ = %v, want 1000 (all CV scores equal)", f.Fold, ff.Gamma)
		}
	}

	// The predictions themselves, fitted without the tie context (as when
	// the inner CV holds it out) and with it.
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tie := slices.Index(d.Contexts, "tie")
	f := newFitter(d, opts)
	all := allContexts(d)
	for _, without := range []bool{true, false} {
		hi := tie
		if without {
			hi = tie + 1
		}
		f.sumExcept(all, tie, hi) // all is the identity: positions are contexts
		hp, ok := newMethodPath(Half, f.sum, len(d.Attrs))
		if !ok {
			t.Fatal("factorization failed")
		}
		for _, gam := range opts.Gammas {
			rl := solveAt(t, hp, gam, d.Q(), len(d.Attrs))
			p := f.predict(tie, rl, make([]float64, 4))
			if p[1] != p[3] || rl.delta[0] == 0 {
				t.Errorf("γ=%v (tie context held out: %v): δ = %v, ŷ(c1) = %.17g, ŷ(c3) = %.17g; want equal, δ ≠ 0", gam, without, rl.delta, p[1], p[3])
			}
		}
	}
}

// pairStudy is a study with scores on a grid of 1/8 (so that Δ±, O and H
// are exact) in which some candidates copy another's defining row:
// candidate m1 copies m0's s0 and probe scores (equal J rows: every
// method must predict them equally), and m3 copies m2's s0 and, per
// attribute, s+ − s− but not s+ and s− (equal O rows, different Δ±: Half
// must predict them equally). With global, every context has these four
// candidates only and the design is built for global mode.
func pairStudy(t *testing.T, nctx, K int, seed uint64, global bool) (*Design, [][2]int, [][2]int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	grid := func(lo, hi float64) float64 { return math.Round((lo+rng.Float64()*(hi-lo))*8) / 8 }
	var rows []model.ScoreRow
	var labels []model.Label
	ncand := 6
	if global {
		ncand = 4
	}
	for g := 0; g < nctx; g++ {
		ctx := fmt.Sprintf("c%02d", g)
		var s0, sp, sm [6][]float64
		for i := 0; i < ncand; i++ {
			s0[i] = []float64{grid(1, 9)}
			sp[i], sm[i] = make([]float64, K), make([]float64, K)
			for k := 0; k < K; k++ {
				sp[i][k], sm[i][k] = s0[i][0]+grid(-2, 2), s0[i][0]+grid(-2, 2)
			}
		}
		s0[1], sp[1], sm[1] = s0[0], sp[0], sm[0]
		s0[3] = s0[2]
		for k := 0; k < K; k++ {
			shift := float64(1+rng.IntN(8)) / 8 * float64(1-2*rng.IntN(2)) // ≠ 0
			sp[3][k], sm[3][k] = sp[2][k]+shift, sm[2][k]+shift
		}
		for i := 0; i < ncand; i++ {
			cand := fmt.Sprintf("m%d", i)
			labels = append(labels, model.Label{Context: ctx, Candidate: cand, Human: rng.NormFloat64()})
			rows = append(rows, model.ScoreRow{Context: ctx, Candidate: cand, Probe: "baseline", Score: s0[i][0]})
			for k := 0; k < K; k++ {
				a := fmt.Sprintf("a%d", k)
				rows = append(rows,
					model.ScoreRow{Context: ctx, Candidate: cand, Probe: a + ":+", Score: sp[i][k]},
					model.ScoreRow{Context: ctx, Candidate: cand, Probe: a + ":-", Score: sm[i][k]})
			}
		}
	}
	d, _, err := BuildDesign(rows, labels, BuildOptions{Global: global})
	if err != nil {
		t.Fatal(err)
	}
	var sameJ, sameO [][2]int
	q := d.Q()
	for g := range d.Contexts {
		lo := d.Off[g]
		a, b := lo, lo+1
		if d.S0[a] != d.S0[b] || !slices.Equal(d.J[a*q:(a+1)*q], d.J[b*q:(b+1)*q]) {
			t.Fatalf("context %s: m0 and m1 differ", d.Contexts[g])
		}
		sameJ = append(sameJ, [2]int{a, b})
		a, b = lo+2, lo+3
		for k := 0; k < K; k++ {
			ja, jb := d.J[a*q+2*k:], d.J[b*q+2*k:]
			if (ja[0]+ja[1])/2 != (jb[0]+jb[1])/2 || ja[0] == jb[0] {
				t.Fatalf("context %s: m2 and m3 should share O_%d and differ in Δ±", d.Contexts[g], k)
			}
		}
		sameO = append(sameO, [2]int{a, b})
	}
	return d, sameJ, sameO
}

// tiedPairs are the row pairs whose predictions under m must be equal:
// equal s0 and J rows for every method, equal s0 and O rows too for Half.
func tiedPairs(m Method, sameJ, sameO [][2]int) [][2]int {
	if m == Half {
		return append(slices.Clone(sameJ), sameO...)
	}
	return sameJ
}

// TestEqualRowsEqualPredictions: for every method at every γ, fitted as
// the outer and the inner cross-validation fit it (docs/protocol.md §5),
// candidates whose defining rows are bitwise equal get bitwise-equal
// predictions (docs/protocol.md §4): equal s0 and J rows for every
// method, equal s0 and O rows for Half. Also for arbitrary coefficients.
func TestEqualRowsEqualPredictions(t *testing.T) {
	d, sameJ, sameO := pairStudy(t, 10, 3, 61, false)
	opts := DefaultOptions()
	opts.Taylor = true
	f := newFitter(d, opts)
	q, K := d.Q(), len(d.Attrs)
	check := func(what string, m Method, r *rule) {
		t.Helper()
		pairs := tiedPairs(m, sameJ, sameO)
		pred := make([]float64, d.Rows())
		for g := range d.Contexts {
			f.predict(g, r, pred[d.Off[g]:])
		}
		for _, p := range pairs {
			if pred[p[0]] != pred[p[1]] {
				t.Errorf("%s %v: rows %d and %d share their defining row but ŷ = %.17g, %.17g", what, m, p[0], p[1], pred[p[0]], pred[p[1]])
				return
			}
		}
	}
	all := allContexts(d)
	for part := 0; part < 3; part++ { // the whole set, then two inner-CV style subsets
		f.sumExcept(all, part*3, part*3+min(part, 1)*3)
		ps, err := f.paths()
		if err != nil {
			t.Fatal(err)
		}
		for _, mp := range ps {
			for _, gam := range opts.Gammas {
				check(fmt.Sprintf("part %d γ=%v", part, gam), mp.method, solveAt(t, mp, gam, q, K))
			}
		}
	}
	rng := rand.New(rand.NewPCG(62, 0))
	for i := 0; i < 200; i++ {
		for _, m := range []Method{PRISM, AlphaPRISM, Half, Taylor} {
			r := newRule(q, K)
			r.method, r.alpha = m, 1
			if m == AlphaPRISM {
				r.alpha = rng.NormFloat64()
			}
			for c := range r.beta {
				r.beta[c] = rng.NormFloat64()
			}
			for k := range r.delta {
				r.delta[k] = rng.NormFloat64()
				r.curv[k] = r.delta[k] * r.delta[k] / 2
			}
			check("random", m, r)
		}
	}
}

// TestEqualRowsEqualPredictionsGlobal is TestEqualRowsEqualPredictions in
// global mode, where O and H are centered over the whole dataset.
func TestEqualRowsEqualPredictionsGlobal(t *testing.T) {
	d, sameJ, sameO := pairStudy(t, 12, 3, 63, true)
	opts := DefaultOptions()
	opts.Taylor = true
	f := newGlobalFitter(d, opts)
	q, K := d.Q(), len(d.Attrs)
	var train []int // all but the last candidate of each context
	for r := 0; r < d.Rows(); r++ {
		if r%4 != 3 {
			train = append(train, r)
		}
	}
	f.fitSums(train)
	ps, err := f.paths()
	if err != nil {
		t.Fatal(err)
	}
	for _, mp := range ps {
		pairs := tiedPairs(mp.method, sameJ, sameO)
		for _, gam := range opts.Gammas {
			r := solveAt(t, mp, gam, q, K)
			for _, p := range pairs {
				if a, b := f.predict(p[0], r), f.predict(p[1], r); a != b {
					t.Errorf("%v γ=%v: rows %d and %d share their defining row but ŷ = %.17g, %.17g", mp.method, gam, p[0], p[1], a, b)
				}
			}
		}
	}
}

// TestEqualRowsEqualPredictionsSelect: probe selection's PRISM fits on
// column subsets predict candidates with equal s0 and J rows equally.
func TestEqualRowsEqualPredictionsSelect(t *testing.T) {
	d, sameJ, _ := pairStudy(t, 10, 3, 64, false)
	opts := DefaultOptions()
	order, _, err := ResolveOrder(d, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSelector(d, opts, order)
	w := s.worker()
	pred := make([]float64, d.Rows())
	for _, cols := range [][]int{{0}, {1, 2}, {0, 3, 5}, {0, 1, 2, 3, 4, 5}} {
		for _, fd := range s.folds {
			mp, err := w.path(fd.outer, cols)
			if err != nil {
				t.Fatal(err)
			}
			for _, gam := range opts.Gammas {
				w.solve(mp, gam, cols)
				for g := range d.Contexts {
					w.f.predict(g, w.full, pred[d.Off[g]:])
				}
				for _, p := range sameJ {
					if pred[p[0]] != pred[p[1]] {
						t.Errorf("columns %v γ=%v: rows %d and %d share s0 and J but ŷ = %.17g, %.17g", cols, gam, p[0], p[1], pred[p[0]], pred[p[1]])
					}
				}
			}
		}
	}
}
