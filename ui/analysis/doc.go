// Package analysis is what the analysis tabs share and no one tab owns:
// fitting a study as `prism fit` does (FitStudy), measuring judges' agreement with the labels as `prism agree`
// does, what the tabs add to the paper's Table 2 (its rows, its CSV and
// the export of a report's files are calib/figures', which prism fit
// --figures writes too), the export of a fit's study, and when a fit no longer describes the study
// (FitStale, which the Fit and Profiles tabs both show). The Fit,
// Profiles, Inspect and Compare tabs (ui/tabs/...) import it; it imports
// no tab and holds no state.
package analysis
