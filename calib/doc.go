// Package calib owns prism's numerics: the PRISM protocol of
// docs/protocol.md sections 2 to 9 (the paper, arXiv 2610.18389, restated
// in the repository). It builds the surrogate Jacobian
// from judge scores, centers it within contexts, fits PRISM, α-PRISM and
// the half-difference ridge corrections with nested, context-grouped
// cross-validation, scores them by within-context Spearman or pairwise
// accuracy, bootstraps paired intervals and derives the correction
// profiles and the regularization sweep. Fit is the entry point; its
// Report is the single source of the numbers prism shows. signal.Signal computes
// the signal diagnostics of section 8 (probe/neutral and repeat RMS
// ratios, the screen, cross-run reproducibility) and selection.Select the probe
// selection of section 9 (every subset, omission, forward selection).
// confirm.Confirm runs the exploration/confirmation protocol of section 13 (the
// paper's §A.5 and Table 21): a hash split of the contexts, screen, pools
// and fits on exploration, one paired-bootstrap score on confirmation.
// order.Diagnostics computes the presentation-order diagnostics of
// batched scoring of section 14 (averaged-order response correlation,
// Kendall τ of an order's reversal against a repeat, position effects,
// Spearman of order averaging against pointwise scoring).
// calib/forest holds the random forest regressor (scikit-learn semantics,
// deterministic for a seed whatever the number of cores, the head of the
// rubric baselines.
package calib
