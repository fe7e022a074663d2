// Package compare is the Compare tab (paper §3.2): every judge of the
// workspace with answers on the dataset, fitted the same way
// (analysis.FitStudy with the Fit tab's settings, which arrive with
// tab.FitSettingsMsg), side by side: every judge's agreement with the
// labels, their method tables, and per attribute their profile means on
// one axis with whether the judges agree or oppose (from their fold
// ranges, signMark), each judge's mean and fold range, and the first
// judge's difference from each other with the paired fold range (Diff),
// or "not paired" when their folds are not the same contexts (Paired).
// A simulator's name carries "(simulator)" (JudgeFit.Label).
package compare
