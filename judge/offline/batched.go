package offline

// Order effects of batched pointwise scoring (docs/judge.md, "The offline
// judge", paper §B.6). When one request shows n ≥ 2 candidates, the
// simulator's logits z_0 … z_{n−1} (in presentation order, probe terms
// included) become
//
//	z̄   = (1/n) Σ_q z_q
//	z'_p = z̄ + (1 − φ·p/(n−1))·(z_p − z̄)        attention: later candidates are told apart less
//	       − κ·(z_{p−1} − z̄)   (p ≥ 1)            contrast: after a better candidate one looks worse
//	       + b·(1 − 2p/(n−1))                    primacy: first +b, last −b
//
// with b = positionBias = 0.15, κ = orderContrast = 0.3 and
// φ = orderAttention = 0.3. The primacy term is additive in position and
// cancels over an order and its reversal; the other two interact with the
// candidates shown, so they move scores and probe responses from order to
// order, which only averaging many orders smooths out, as the paper
// reports for real judges (additive position effects are a small share
// of the order-induced variance). Everything is deterministic: the call
// noise is drawn as for any request, seeded by the texts in their order.
const (
	orderContrast  = 0.3
	orderAttention = 0.3
)

// batchEffects rewrites zs (one batched request's logits, presentation
// order) in place as above. It is the only hook of batched scoring in
// Score.
func batchEffects(zs []float64) {
	n := len(zs)
	if n < 2 {
		return
	}
	var mean float64
	for _, z := range zs {
		mean += z
	}
	mean /= float64(n)
	prev := zs[0] // the raw logit of the previous position
	last := float64(n - 1)
	for p := range zs {
		raw := zs[p]
		z := mean + (1-orderAttention*float64(p)/last)*(raw-mean)
		if p > 0 {
			z -= orderContrast * (prev - mean)
		}
		zs[p] = z + positionBias*(1-2*float64(p)/last)
		prev = raw
	}
}
