// Package compare is the Compare tab (paper §3.2): every judge of the
// workspace with answers on the dataset, fitted the same way
// (analysis.FitStudy with the Fit tab's settings, which arrive with
// tab.FitSettingsMsg), side by side: every judge's agreement with the
// labels, their method tables, and per attribute their profile means on
// one axis, whether the signs of the judges agree or differ, and each
// judge's numbers.
package compare
