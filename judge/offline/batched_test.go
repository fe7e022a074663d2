package offline

import (
	"math"
	"testing"
)

// Hand-computed: zs = (1, 0, −1) has z̄ = 0, last = 2, κ = 0.3, φ = 0.3,
// b = 0.15:
//
//	p0: 0 + 1·1            + 0.15·1  =  1.15
//	p1: 0 + 0.85·0 − 0.3·1 + 0       = −0.30
//	p2: 0 + 0.7·(−1) − 0.3·0 − 0.15  = −0.85
func TestBatchEffectsHandComputed(t *testing.T) {
	zs := []float64{1, 0, -1}
	batchEffects(zs)
	want := []float64{1.15, -0.30, -0.85}
	for p := range zs {
		if math.Abs(zs[p]-want[p]) > 1e-12 {
			t.Errorf("z'_%d = %v, want %v", p, zs[p], want[p])
		}
	}
	one := []float64{2}
	batchEffects(one)
	if one[0] != 2 {
		t.Errorf("a single candidate is changed: %v", one[0])
	}
}

// The primacy term is additive in position: over an order and its
// reversal it sums to zero; the contrast and attention terms do not, so
// equal logits (no candidate differences) see only the primacy term.
func TestBatchEffectsEqualLogits(t *testing.T) {
	zs := []float64{0.5, 0.5, 0.5, 0.5, 0.5}
	batchEffects(zs)
	for p := range zs {
		want := 0.5 + positionBias*(1-2*float64(p)/4)
		if math.Abs(zs[p]-want) > 1e-12 {
			t.Errorf("z'_%d = %v, want %v", p, zs[p], want)
		}
	}
	if math.Abs(zs[0]+zs[4]-1) > 1e-12 {
		t.Errorf("first and last do not balance: %v %v", zs[0], zs[4])
	}
}
