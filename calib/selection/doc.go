// Package selection owns the probe selection of docs/protocol.md §9:
// every subset of the units (attributes and context probes) up to
// MaxSubsetUnits, the omission of each unit and forward selection, each
// scored by PRISM (α = 1) under the nested cross-validation of §5 on the
// same folds (calib.Selector). Select and SelectDesign are the entry
// points; Units and Forward are shared with calib/confirm.
package selection
