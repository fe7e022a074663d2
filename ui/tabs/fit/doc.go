// Package fit is the Fit tab (docs/protocol.md §2–7, paper Table 2 and
// Fig. 4b): calib.Fit on the stored answers of the study (its dataset,
// the Run form's judge, the bank version) as a job whose progress counts
// the outer folds and the bootstrap; the methods' mean metric with its
// 95% interval and the paired difference from Vanilla (the paper's
// Table 2 when the judge has rubric baselines), the γ chosen in each
// outer fold, the imputed cells, and the γ sweep as a dot chart. For a
// judge without probes it shows the judge's agreement with the labels
// instead. It opens on the study's newest stored fit, exports the
// report and figures (e) and saves the fit's calibrator (S).
//
// It tells the other tabs by message: tab.FitDoneMsg (Profiles shows the
// fit, Inspect follows it), tab.FitSettingsMsg (the metric and Taylor
// setting, which Profiles and Compare use), tab.CalibratorSavedMsg (the
// App offers the file to L); it refits on tab.RefitMsg (f, m and t on
// the Profiles tab, f on Inspect).
package fit
