package order

import (
	"math"

	"github.com/prism-eval/prism/calib"
)

// corrSums accumulates the pooled correlation of within-group centered
// pairs: Σ x̃ỹ, Σ x̃², Σ ỹ² and the cells N. Because every group is
// centered, the pooled Pearson correlation is Σx̃ỹ / √(Σx̃² · Σỹ²), and
// the sums of whole contexts add up, which is what the context bootstrap
// resamples.
type corrSums struct{ xy, xx, yy, n float64 }

func (s *corrSums) add(o corrSums) { s.xy += o.xy; s.xx += o.xx; s.yy += o.yy; s.n += o.n }

// addCentered centers the cells of x and y where both are finite (one
// group: one context and unit) and adds them.
func (s *corrSums) addCentered(x, y []float64) {
	var mx, my, n float64
	for i := range x {
		if calib.Finite(x[i]) && calib.Finite(y[i]) {
			mx += x[i]
			my += y[i]
			n++
		}
	}
	if n < 2 {
		return
	}
	mx /= n
	my /= n
	for i := range x {
		if calib.Finite(x[i]) && calib.Finite(y[i]) {
			dx, dy := x[i]-mx, y[i]-my
			s.xy += dx * dy
			s.xx += dx * dx
			s.yy += dy * dy
		}
	}
	s.n += n
}

// corr is the pooled correlation; ok is false when a side has no spread.
func (s corrSums) corr() (float64, bool) {
	if s.xx <= 0 || s.yy <= 0 {
		return 0, false
	}
	return s.xy / math.Sqrt(s.xx*s.yy), true
}
