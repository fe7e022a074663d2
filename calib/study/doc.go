// Package study reads one study of a workspace for analysis.
//
// A study is one dataset × one judge (backend, model, parameters, mode) ×
// one bank version (its content hash, which covers the score scale) ×
// the repeats its acquisition planned (docs/glossary.md, "study"). Every
// analysis (fit, select, budget, screen's and diagnose's reports, score,
// exports and the TUI's analysis tabs) reads its input here, so that one
// study gives one set of numbers whichever command or tab shows them,
// and no answer of another bank, scale or diagnostic joins it silently.
//
// It sits above calib and judge/engine's store: it turns stored answers
// into calib's inputs (score rows, labels, rubric baselines, order data)
// and records what went in (Provenance). The acquisition engine does not
// import it, nor calib.
//
// Key names a study and Versions counts, per key, the changes of its
// answers in memory (the TUI's staleness), unlike the stored generation.
package study
