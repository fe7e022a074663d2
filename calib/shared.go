package calib

// The helpers below are the core's small statistics, exported for the
// diagnostic sub-packages (calib/order, calib/signal, ...) so that they
// compute exactly what the core computes.

// Mean is the arithmetic mean of x, summed in order (NaN for an empty x).
func Mean(x []float64) float64 { return mean(x) }

// PercentileInterval sorts s and returns its Quantile7 at 0.025 and 0.975.
func PercentileInterval(s []float64) [2]float64 { return percentileInterval(s) }

// Finite reports whether v is neither NaN nor infinite.
func Finite(v float64) bool { return finite(v) }
