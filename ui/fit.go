package ui

import (
	"path/filepath"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/agree"
)

// The App's side of the analysis tabs (ui/tabs/fit, profiles, inspect,
// compare): where the Fit tab exports, and what the program and the
// tabs not moved yet read of ui/analysis and ui/jobs.

// exportDirName is the directory exports go to by default, beside the
// workspace's file.
const exportDirName = "prism-figures"

// defaultExportDir is where the Fit tab exports unless told otherwise:
// beside the workspace's file, or in the current directory for the demo
// (whose workspace is a temporary directory removed at exit) or without
// a workspace.
func defaultExportDir(s Session) string {
	if s.Store == nil || s.Demo || s.Store.Path() == "" {
		return exportDirName
	}
	return filepath.Join(filepath.Dir(s.Store.Path()), exportDirName)
}

// FitReport is the report the Fit tab shows (nil before a fit): what a
// test compares with prism fit's.
func (a *App) FitReport() *calib.Report { return a.fit.Report() }

// FitAgreement is the agreement the Fit tab shows for a judge without
// probes (nil otherwise): what a test compares with prism agree's.
func (a *App) FitAgreement() *agree.Result {
	if ag := a.fit.Agreement(); ag != nil {
		return ag.Res
	}
	return nil
}

// CompareAgreement is the Compare tab's agreement of every judge (nil
// before a comparison): what a test compares with prism agree's.
func (a *App) CompareAgreement() *agree.Result { return a.cmp.Agreement() }
