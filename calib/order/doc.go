// Package order owns the presentation-order diagnostics of batched
// scoring, docs/protocol.md §14: the averaged-order response correlation
// curve, Kendall τ_b of an order's reversal against a repeat, the
// position effects (Positions) and the Spearman of order averaging
// against pointwise scoring, each with a context-bootstrap interval
// (calib.PairedBootstrap). Diagnostics is the entry point; calib/study
// builds its Data from stored scores.
package order
