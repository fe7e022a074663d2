// Package ui is prism's Bubble Tea TUI. The App holds what the tabs share
// (the session: the study, the workspace; the study versions; the running
// job; the tab bar, the header, the help, modals) and dispatches; each
// tab owns its state, keys, update and view behind tab.Tab (ui/tab says
// how the App dispatches and how tabs talk: by messages, never by
// reaching into another tab). Widgets come from Bubbles where it has one
// (key, help, filepicker, textarea, textinput); the rest (panes, lists,
// charts, scrolling) are in ui/widgets and say why. No I/O happens in
// Update; long work (planning, runs, imports, the ratio bootstrap) runs
// in commands and comes back as messages.
//
// Where each tab lives: a tab that has moved to its package is in
// ui/tabs/<name> (its model, its KeyMap, its update and view, and its
// tests); the App-wide keys are in keys.go. The tabs not moved yet are
// still here, behind appTab (tabs.go), which reads the *App:
//
//	Data      ui/tabs/data (the import dialog and the dataset chooser too;
//	          the App switches datasets: dataset.go)
//	Bank      ui/tabs/bank (its edits, saves, screen, signal panel, order
//	          section and probe diagnostics; the App runs its screen: bankrun.go)
//	Run       run.go, runstate.go, runform.go · runctl.go, runcmd.go · run.go
//	Select    selectview.go · selectctl.go, selectcmd.go, budgetcmd.go · selectview.go, budgetview.go
//	Fit       fitview.go · fitctl.go, storedfit.go · fitview.go, table2.go
//	Profiles  profview.go (state, keys, view)
//	Inspect   inspectview.go · inspect.go · inspectview.go
//	Compare   compare.go, agreement.go
//
// The calibrator the Fit tab saves (S), the Data tab loads (L) and
// Inspect shows is in calibrator.go (state in App.cal). The ratio panel's
// rows, which the Run and Bank tabs draw, are in ui/ratio. Staleness: a
// result keeps the study.Versions version of the answers it read
// (App.versions, bumped when a run or a screen of the bank stores
// answers) and is stale when the version moved on.
package ui
