package compare

import "testing"

func TestDirection(t *testing.T) {
	for _, tc := range []struct {
		means []float64
		want  string
	}{
		{[]float64{0.1, 0.3}, "agree"},
		{[]float64{-0.1, -0.3, -2}, "agree"},
		{[]float64{0.1, -0.3}, "differ"},
		{[]float64{0.1, 0}, ""}, // one judge corrects, the other does not
		{[]float64{0.1}, ""},
	} {
		if got := direction(tc.means); got != tc.want {
			t.Errorf("direction(%v) = %q, want %q", tc.means, got, tc.want)
		}
	}
}
