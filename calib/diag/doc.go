// Package diag owns the three cross-run diagnostics of docs/protocol.md
// §15, which share one score table and one bootstrap of the cross-run
// products Q: wording strength (§15.1, Wording: the ladder of worded
// controls against the standard probes), joint instructions (§15.2,
// Joint: two attributes asked at once against each alone) and score
// resolution (§15.3, Resolution: the same candidates scored on two
// scales). Each needs MinRuns runs and Options.MinContexts contexts, or
// says why not (TooFew).
package diag
