package calib

import (
	"fmt"
	"math"
	"strconv"
)

// The helpers below are the core's small statistics, exported for the
// diagnostic sub-packages (calib/order, calib/signal, ...) so that they
// compute exactly what the core computes.

// Mean is the arithmetic mean of x, summed in order (NaN for an empty x).
func Mean(x []float64) float64 { return mean(x) }

// PercentileInterval sorts s and returns its Quantile7 at 0.025 and 0.975.
func PercentileInterval(s []float64) [2]float64 { return percentileInterval(s) }

// Finite reports whether v is neither NaN nor infinite.
func Finite(v float64) bool { return finite(v) }

// At is the location of a row in error messages: "file:line", or file
// alone when the line is unknown (0).
func At(file string, line int) string { return at(file, line) }

// Ratio is n/d, NaN when d is 0.
func Ratio(n, d float64) float64 {
	if d == 0 {
		return math.NaN()
	}
	return n / d
}

// JSONFloat writes a float64 as a JSON number, or null when it is NaN or
// infinite (encoding/json refuses those); the diagnostics use NaN for
// "undefined" (no data, fewer than two runs).
type JSONFloat float64

// MarshalJSON writes f, or null when it is not finite.
func (f JSONFloat) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
}

// JSONPair is an interval as two JSONFloats.
func JSONPair(p [2]float64) [2]JSONFloat { return [2]JSONFloat{JSONFloat(p[0]), JSONFloat(p[1])} }

// TooFew is the minimum-count guard the protocol steps and the
// diagnostics share: "" when have reaches need, else why not, format
// written with have and need in that order. The formats stay the
// callers': each names what it counts in its own words.
func TooFew(have, need int, format string) string {
	if have >= need {
		return ""
	}
	return fmt.Sprintf(format, have, need)
}

// CheckFolds fails when the design has fewer contexts than the outer
// folds (one per fold); lf names the labels in the message.
func CheckFolds(lf string, contexts, folds int) error {
	if why := TooFew(contexts, folds, "only %d contexts with at least two labelled candidates; need at least %d (one per fold)"); why != "" {
		return fmt.Errorf("%s: %s", lf, why)
	}
	return nil
}
