// Package confirm owns the exploration/confirmation protocol of
// docs/protocol.md §13 (the paper's §A.5 and Table 21): a hash split of
// the contexts (ConfirmSplit, SplitRule), the signal screen (calib/signal)
// and forward selection (calib/selection) on exploration, the probe
// pools fitted there (calib.FitHoldout) with the rubric baselines, and
// one paired-bootstrap score of every fit on confirmation. Confirm is the
// entry point.
package confirm
