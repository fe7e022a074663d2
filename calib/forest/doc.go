// Package forest is a random forest regressor with scikit-learn's
// RandomForestRegressor semantics, deterministic for a seed whatever the
// number of cores. It is the head of the SAJA rubric baseline
// (docs/protocol.md §12, the paper's §A.4): calib's baseline fit calls
// Fit on the criterion ratings of each outer fold. It imports nothing of
// calib, so that calib can use it.
package forest
