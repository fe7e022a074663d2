package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// modal is a dialog drawn over the tab; while one is open it gets every
// key. Update may close it by setting a.modal to nil.
type modal interface {
	Update(a *App, msg tea.Msg) tea.Cmd
	View(a *App, st *styles.Styles) string
}

// confirm asks a yes/no question about work that could be lost: y does
// it, n or esc keeps things as they are. Its lines are the question, then
// what it means (muted).
type confirm struct {
	title   string
	lines   []string
	yes, no string // what y and n do, for the key line
	onYes   func(a *App) tea.Cmd
}

func (c *confirm) Update(a *App, msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(km, a.keys.Yes):
		a.modal = nil
		return c.onYes(a)
	case key.Matches(km, a.keys.No):
		a.modal = nil
	}
	return nil
}

func (c *confirm) View(a *App, st *styles.Styles) string {
	return widgets.Dialog(st, min(60, a.width-2), c.title, widgets.ConfirmLines(st, min(60, a.width-2)-widgets.PaneChromeW, c.lines, c.yes, c.no))
}

// confirmQuit asks before quitting with a run in flight or unsaved bank
// edits, and says what quitting keeps.
type confirmQuit struct{}

func (confirmQuit) Update(a *App, msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(km, a.keys.Yes):
		a.modal = nil
		// Cancel, then quit once everything finished is stored.
		a.quitAfterRun = true
		ran := a.run.CancelForQuit()
		if a.bank.Screening() {
			a.bank.CancelScreen()
		} else if !ran {
			return tea.Quit
		}
	case key.Matches(km, a.keys.No), km.String() == "q":
		a.modal = nil
	}
	return nil
}

// busy is whether a run or a screen of the bank is in flight.
func (a *App) busy() bool { return a.run.Active() || a.bank.Screening() }

// quitText is what the quit dialog says: the question, what happens to
// the answers (stored in a kept workspace; deleted with the demo's
// temporary one) and to unsaved bank edits, and what y and n do.
func (a *App) quitText() (lines []string, yes, no string) {
	bank := fmt.Sprintf("%s (%.7s)", a.bank.Bank().Name, a.bank.Bank().Hash())
	if !a.busy() {
		return []string{
			"The bank " + bank + " has unsaved edits. Quit without saving them?",
			"n, then w on the Bank tab, saves them as a TOML file.",
		}, "quit", "stay"
	}
	lines = []string{"A run is in progress. Cancel it and quit?"}
	if a.study.Temporary {
		lines = append(lines, "This demo's workspace is temporary: it is deleted on exit, with every answer in it.")
	} else {
		lines = append(lines, "Finished answers are stored; rerun to resume.")
	}
	if a.bank.Unsaved() {
		lines = append(lines, "The bank "+bank+" has unsaved edits; they are lost too (w on the Bank tab saves them).")
	}
	return lines, "cancel and quit", "keep running"
}

func (confirmQuit) View(a *App, st *styles.Styles) string {
	w := min(60, a.width-2)
	lines, yes, no := a.quitText()
	return widgets.Dialog(st, w, "Quit?", widgets.ConfirmLines(st, w-widgets.PaneChromeW, lines, yes, no))
}
