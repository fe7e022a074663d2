package widgets

import (
	"fmt"
	"math"
	"strings"
)

// The intervals, ranks and differences of the analysis tabs (Fit,
// Profiles, Inspect, Compare), after Mean4 and Gain4 (format.go).

// CI prints an interval of means ("[0.1234, 0.5678]").
func CI(ci [2]float64) string { return "[" + Mean4(ci[0]) + ", " + Mean4(ci[1]) + "]" }

// DiffCI prints an interval of differences, signed.
func DiffCI(ci [2]float64) string { return "[" + Gain4(ci[0]) + ", " + Gain4(ci[1]) + "]" }

// Rank prints a mid-rank ("2", "2.5") of n ("2.5/7"), or "—".
func Rank(r float64, n int) string {
	if math.IsNaN(r) {
		return "—"
	}
	return fmt.Sprintf("%s/%d", strings.TrimSuffix(fmt.Sprintf("%.1f", r), ".0"), n)
}

// SignedNum prints a difference with its sign and 2 decimals, or "—".
func SignedNum(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return fmt.Sprintf("%+.2f", f)
}
