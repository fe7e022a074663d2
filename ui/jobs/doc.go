// Package jobs is the long work the tabs run on a study's stored answers
// (a fit, a probe selection, a budget curve, an inspection): the runner
// that does it in its own goroutine and reports coalesced progress to
// Update as messages (Job, State and the messages), and the reading of a
// study's answers and labels that such work starts from (ReadStudy). It
// is shared by the tabs and owned by none; it draws nothing.
package jobs
