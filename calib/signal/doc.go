// Package signal owns the signal diagnostics of docs/protocol.md §8: per
// unit (attribute or context probe) the RMS of its displacements against
// the neutral clause and against repeats, their context-bootstrap
// intervals and the screen's verdict (Unit.Pass, or TooFew below
// MinContexts contexts), and the cross-run reproducibility of the probe
// effects (CrossRunQ). Signal is the entry point; ScreenSample draws the
// contexts prism screen scores. calib/confirm runs the screen on the
// exploration contexts.
package signal
