package inspect

import "testing"

func TestMidRankDesc(t *testing.T) {
	// Hand ranks, 1 = highest: 5 → 1; the two 3s share ranks 2 and 3 → 2.5;
	// 1 → 4.
	vals := []float64{3, 5, 1, 3}
	for i, want := range []float64{2.5, 1, 4, 2.5} {
		if got := MidRankDesc(vals, i); got != want {
			t.Errorf("MidRankDesc(%v, %d) = %g, want %g", vals, i, got, want)
		}
	}
}
