package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// screen is one tab of the App. Each screen owns its state and handles
// its own keys and the messages of its own work; the App keeps what is
// shared (the study, the workspace, the running job, the tab bar, the
// header, modals) and dispatches:
//
//   - a key goes to the current screen when its text input has the keys
//     (Editing), else when the App's common keys (quit, help, tabs,
//     navigation) do not take it;
//   - navigation keys, the wheel and clicks reach the current screen as
//     moveMsg, focusMsg and clickMsg;
//   - every other message goes to every screen, and each acts only on its
//     own (a run's events on the Run tab, a screen's on the Bank
//     screen, a fit's on the Fit tab, and so on).
//
// a is the shared context, as for modals: the study, the workspace and
// the results of other screens a screen reads (the Run form names the
// study's judge, the Fit tab's report feeds Inspect).
//
// Where each screen lives (state · keys and update · view):
//
//	Data      data.go
//	Bank      bank.go · bankctl.go, bankedit.go, screening.go · bank.go, banksignal.go
//	Run       run.go, runstate.go, runform.go · runctl.go, runcmd.go · run.go
//	Select    selectview.go · selectctl.go, selectcmd.go · selectview.go
//	Fit       fitview.go · fitctl.go · fitview.go
//	Profiles  profview.go (state, keys, view)
//	Inspect   inspectview.go · inspect.go · inspectview.go
//	Compare   compare.go
//
// The calibrator the Fit tab saves (S), the Data tab loads (L) and
// Inspect shows is in calibrator.go (state in App.cal).
type appTab interface {
	Update(a *App, msg tea.Msg) tea.Cmd
	View(a *App) string
	SetSize(w, h int)
	// Keys are the screen's own bindings as the help bar shows them now.
	Keys(a *App) []key.Binding
	// Badge is what the screen's tab adds to its name (the progress of
	// its work), or "".
	Badge(a *App) string
	// Editing is true while a text input of the screen takes every key.
	Editing() bool
}

// Navigation the App maps from its common keys, the wheel and the mouse
// onto the current screen.
type (
	// moveMsg moves the focused pane's cursor or scroll by delta rows.
	moveMsg struct{ delta int }
	// focusMsg focuses the right or left pane.
	focusMsg struct{ right bool }
	// clickMsg is a left click at x, y of the screen's body.
	clickMsg struct{ x, y int }
)

// screens are the App's screens in tab order.
func (a *App) tabs() [numTabs]appTab {
	return [numTabs]appTab{&a.data, &a.bank, &a.run, &a.sel, &a.fit, &a.prof, &a.insp, &a.cmp}
}

// cur is the current screen.
func (a *App) cur() appTab { return a.tabs()[a.tab] }

// batch is tea.Batch without the nil commands, nil when none is left.
func batch(cmds ...tea.Cmd) tea.Cmd {
	var out []tea.Cmd
	for _, c := range cmds {
		if c != nil {
			out = append(out, c)
		}
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return tea.Batch(out...)
}
