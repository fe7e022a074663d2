package calib

import (
	"fmt"
	"math/rand/v2"

	"github.com/prism-eval/prism/model"
)

// synth builds a deterministic synthetic study: nctx contexts × ncand
// candidates × K attributes. Each candidate has latent qualities z_k; the
// humans weight them by w_k, the judge's baseline by a biased u_k, and the
// probe for k moves the score by ±z_k (plus a shared shift and noise), so
// the Jacobian carries what the baseline misses.
func synth(nctx, ncand, K int, seed uint64) ([]model.ScoreRow, []model.Label) {
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
