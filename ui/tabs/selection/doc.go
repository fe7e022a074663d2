// Package selection is the Select tab (docs/protocol.md §9): on the left
// the subset-size curve (median gain over Vanilla per subset size with
// its 10th–90th percentile band, paper Fig. 4c) or, after b, the budget
// curve (docs/budget.md); on the right the omission table (Table 19) and
// the forward-selection path (Table 21). It runs selection.Select and
// budget.Evaluate on the current study's stored answers as jobs
// (ui/jobs) and reads the study through its Services, never the App.
// ("select" is a Go keyword, hence the package's name.)
package selection
