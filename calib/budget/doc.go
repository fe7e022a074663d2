// Package budget owns the budget curves of docs/protocol.md §16: out of
// fold on the outer folds of π, the mean metric against judge calls per
// candidate of Vanilla, the full bank, static column subsets chosen on
// training importance and the adaptive policy (calib.Policy) over a grid
// of thresholds τ, with the reach table read off the curve. Evaluate is
// the entry point. The policy itself, which a calibrator carries and
// applies, is calib's (calib.Policy, Calibrator.AttachPolicy).
package budget
