// Package analysis holds the commands that read judge scores and human
// labels, from CSV files or a workspace study, and report on them: prism
// fit (PRISM corrections, nested CV, bootstrap, --save a calibrator),
// select (probe selection), budget (agreement per judge call), agree
// (agreement without probes) and export (the CSVs fit reads). It owns
// reading a study's input (fitInput, studyRef) and the score-source flags
// select and budget share.
package analysis
