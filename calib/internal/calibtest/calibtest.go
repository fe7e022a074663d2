package calibtest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/offline"

	"github.com/prism-eval/prism/model"
)

// Synth builds a deterministic synthetic study: nctx contexts × ncand
// candidates × K attributes. Each candidate has latent qualities z_k; the
// humans weight them by w_k, the judge's baseline by a biased u_k, and the
// probe for k moves the score by ±z_k (plus a shared shift and noise), so
// the Jacobian carries what the baseline misses.
func Synth(nctx, ncand, K int, seed uint64) ([]model.ScoreRow, []model.Label) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var rows []model.ScoreRow
	var labels []model.Label
	z := make([]float64, K)
	for g := 0; g < nctx; g++ {
		ctx := fmt.Sprintf("c%03d", g)
		for i := 0; i < ncand; i++ {
			cand := fmt.Sprintf("m%02d", i)
			var y, s0 float64
			for k := range z {
				z[k] = rng.NormFloat64()
				w := 1.0 / float64(k+1)
				u := w * (1 + 0.8*float64(k%3-1)) // over-, under- and right-weighted attributes
				y += w * z[k]
				s0 += u * z[k]
			}
			y += 0.3 * rng.NormFloat64()
			s0 += 0.3 * rng.NormFloat64()
			labels = append(labels, model.Label{Context: ctx, Candidate: cand, Human: y})
			rows = append(rows, model.ScoreRow{Context: ctx, Candidate: cand, Probe: "baseline", Score: s0})
			for k := range z {
				attr := fmt.Sprintf("a%02d", k)
				shift := 0.2
				rows = append(rows,
					model.ScoreRow{Context: ctx, Candidate: cand, Probe: attr + ":+", Score: s0 + shift + 0.5*z[k] + 0.1*rng.NormFloat64()},
					model.ScoreRow{Context: ctx, Candidate: cand, Probe: attr + ":-", Score: s0 + shift - 0.5*z[k] + 0.1*rng.NormFloat64()})
			}
		}
	}
	return rows, labels
}

// Near reports whether a and b agree within tol, NaN matching NaN and an
// infinity only itself.
func Near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tol
}

// AssertClose fails t when got and want differ in length or any element by
// more than tol relative to max(1, |want|).
func AssertClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol*math.Max(1, math.Abs(want[i])) {
			t.Errorf("%s[%d] = %.15g, want %.15g", what, i, got[i], want[i])
		}
	}
}

// SR is a score row of a context, candidate and probe.
func SR(ctx, cand, probe string, score float64) model.ScoreRow {
	return model.ScoreRow{Context: ctx, Candidate: cand, Probe: probe, Score: score}
}

// OfflineStudy scores every candidate of d under every condition of a
// built-in bank with the offline judge, once per run. The simulator's call
// noise is seeded by a hash of the request, the repeat index and the
// judge's Seed, so runs are judges with different seeds (run r: seed r).
func OfflineStudy(t testing.TB, d *model.Dataset, bankName string, runs int, mode judge.Mode) ([]model.ScoreRow, []model.Label) {
	t.Helper()
	bank, err := banks.Builtin(bankName)
	if err != nil {
		t.Fatal(err)
	}
	rend, err := bank.Renderer(d.Task)
	if err != nil {
		t.Fatal(err)
	}
	conds := bank.Conditions()
	var rows []model.ScoreRow
	var labels []model.Label
	for _, c := range d.Contexts {
		for _, cand := range c.Candidates {
			labels = append(labels, model.Label{Context: c.ID, Candidate: cand.ID, Human: cand.Human})
		}
	}
	for r := 1; r <= runs; r++ {
		seed := r
		j, err := offline.New(judge.Config{Backend: judge.BackendOffline, Mode: mode, Seed: &seed})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range d.Contexts {
			for _, cand := range c.Candidates {
				for _, cond := range conds {
					req, err := rend.Render(c, cand, cond)
					if err != nil {
						t.Fatal(err)
					}
					res, err := j.Score(context.Background(), req)
					if err != nil {
						t.Fatal(err)
					}
					rows = append(rows, model.ScoreRow{Run: strconv.Itoa(r), Context: c.ID, Candidate: cand.ID,
						Probe: cond.Probe, Wording: strconv.Itoa(cond.Wording), Score: res.Score})
				}
			}
		}
	}
	return rows, labels
}
