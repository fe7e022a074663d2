// Package ui is prism's Bubble Tea TUI. The App holds what the tabs share
// (the session: the study, the workspace; the study versions; the tab
// bar, the header, the help, modals) and dispatches; each tab owns its
// state, keys, update and view behind tab.Tab (ui/tab says how the App
// dispatches and how tabs talk: by messages, never by reaching into
// another tab). Widgets come from Bubbles where it has one (key, help,
// filepicker, textarea, textinput); the rest (panes, lists, charts,
// scrolling) are in ui/widgets and say why. No I/O happens in Update;
// long work (planning, runs, imports, the ratio bootstrap) runs in
// commands and comes back as messages. The long work on a study's
// stored answers (fits, selections, budget curves) runs as ui/jobs,
// which no tab owns.
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
//	Run       ui/tabs/run (the judge form, whose judge is the study key's:
//	          App.currentKey asks it; the estimate; the run it owns; a
//	          screen of the bank starts with its StartCmd: bankrun.go)
//	Select    ui/tabs/selection (the subset-size and budget curves, the
//	          omission and forward tables; its jobs run in ui/jobs)
//	Fit       ui/tabs/fit (the calibrator's save, S, too)
//	Profiles  ui/tabs/profiles
//	Inspect   ui/tabs/inspect
//	Compare   ui/tabs/compare
//
// The signal panel's rows, which the Run and Bank tabs draw, are in
// ui/ratio. What the analysis tabs share is in ui/analysis (fitting a study, the
// agreement, Table 2, the export, when a fit is stale) and ui/jobs (a
// fit's job and its progress); the Fit tab's fits reach Profiles and
// Inspect as tab.FitDoneMsg, its settings Profiles and Compare as
// tab.FitSettingsMsg. The calibrator the Data tab loads (L) and Inspect
// shows is the App's (calibrator.go, App.cal): the tabs read it through
// their Services, and the Fit tab's save (S) tells the App its path
// (tab.CalibratorSavedMsg).
//
// Staleness: a result keeps the study.Versions version of the answers it
// read (App.versions, bumped when a run or a screen of the bank stores
// answers) and is stale when the version moved on.
package ui
