// Package calib owns prism's numerics: the core of the PRISM protocol of
// docs/protocol.md sections 2 to 7 and 11 to 12 (the paper, arXiv
// 2610.18389, restated in the repository). It builds the surrogate
// Jacobian from judge scores, centers it within contexts, fits PRISM,
// α-PRISM and the half-difference ridge corrections with nested,
// context-grouped cross-validation, scores them by within-context
// Spearman or pairwise accuracy, bootstraps paired intervals and derives
// the correction profiles and the regularization sweep. Fit is the entry
// point; its Report is the single source of the numbers prism shows.
// NewCalibrator and Apply deploy a fit (§11), with the adaptive probing
// policy of §16 (Policy); the rubric baselines of §12 sit beside the
// fitted methods, their forest head in calib/forest.
//
// The diagnostics build on this core in sub-packages, which import calib
// and never the reverse: calib/signal (§8), calib/selection (§9),
// calib/confirm (§13), calib/order (§14), calib/diag (§15) and
// calib/budget (§16). Selector, Holdout and the small exported helpers of
// shared.go are what they need of the core's internals.
package calib
