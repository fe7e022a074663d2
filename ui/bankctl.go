package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// The Bank tab's control: its keys, its text input, and the messages
// of its saves, signal reports and screens (screening.go).

// Keys are the Bank tab's own bindings.
func (v *bankTab) Keys(a *App) []key.Binding {
	k := a.keys
	return []key.Binding{k.ScreenBank, k.Enter, k.Clause, k.AddAttr, k.DelAttr, k.NextBank, k.SaveBank}
}

// Badge is a screen's progress (of the bank).
func (v *bankTab) Badge(*App) string {
	if sc := v.screening; sc != nil && sc.prog.Total > 0 {
		return widgets.Percent(sc.prog.Done, sc.prog.Total)
	}
	return ""
}

func (v *bankTab) Editing() bool { return v.editing }

// Shown catches up with the Data tab's candidate and the study's key.
func (v *bankTab) Shown(a *App) tea.Cmd {
	v.refresh(a)
	return tea.Batch(v.refreshSignal(a), v.refreshOrder(a), v.diag.refresh(a, v.bank, v.task))
}

// refresh renders the preview for the Data tab's candidate.
func (v *bankTab) refresh(a *App) { v.Refresh(a.data.Context(), a.data.Candidate()) }

// Update handles the Bank tab's keys, navigation and text input, and
// the messages of its saves, signal reports and screens.
func (v *bankTab) Update(a *App, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.Move(msg.Delta)
		v.refresh(a)
	case tab.FocusMsg:
		v.Focus(msg.Right)
	case tab.ClickMsg:
		v.Click(msg.X, msg.Y)
		v.refresh(a)
	case tea.KeyPressMsg:
		if v.editing {
			return v.editKey(a, msg)
		}
		return v.key(a, msg)
	case bankSavedMsg:
		return v.onSaved(a, msg)
	case bankSignalMsg:
		return tea.Batch(v.onSignal(a, msg), v.refreshOrder(a), v.diag.refresh(a, v.bank, v.task))
	case orderMsg:
		return v.onOrder(a, msg)
	case diagMsg:
		return v.diag.onMsg(a, v.bank, v.task, msg)
	case screenStartedMsg:
		return v.onScreenStarted(a, msg)
	case runEventsMsg:
		if v.screening != nil && msg.run == v.screening.run {
			return v.onScreenEvents(msg)
		}
	case runDoneMsg:
		if v.screening != nil && msg.run == v.screening.run {
			return v.onScreenDone(a, msg)
		}
	default:
		// A paste, or the clipboard text the text area's ctrl+v read.
		if v.editing {
			var cmd tea.Cmd
			v.input, cmd = v.input.Update(msg)
			return cmd
		}
	}
	return nil
}

// key handles the Bank tab's own keys.
func (v *bankTab) key(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	c := v.selected()
	switch {
	case key.Matches(msg, k.Enter):
		if c.Probe == banks.ProbeBaseline || len(v.conds) == 0 {
			v.status, v.statusErr = "the baseline adds no instruction; pick a probe", true
			return nil
		}
		if kind, _, _ := banks.ProbeKind(c.Probe); kind == "level" || kind == "joint" {
			v.status, v.statusErr = "graded, control and joint wordings are bank-wide templates: edit [levels] or [joint] in the bank file (w saves it)", true
			return nil
		}
		return v.startEdit(editWording, c.Instruction)
	case key.Matches(msg, k.Clause):
		i := v.attrIndex(c)
		if i < 0 {
			v.status, v.statusErr = "only attribute probes have a clause", true
			return nil
		}
		return v.startEdit(editClause, v.bank.Attributes[i].Clause)
	case key.Matches(msg, k.AddAttr):
		return v.startEdit(editNewAttr, "")
	case key.Matches(msg, k.DelAttr):
		return v.askRemove(a)
	case key.Matches(msg, k.NextBank):
		next := v.nextBuiltin()
		if next == nil {
			return nil
		}
		if !v.unsaved() {
			v.switchTo(next)
			return v.changed(a)
		}
		a.modal = &confirm{
			title: "Next bank?",
			lines: []string{
				fmt.Sprintf("The bank %s (%.7s) has unsaved edits. Switch to %s and drop them?", v.bank.Name, v.bank.Hash(), next.Name),
				"n, then w, saves them as a TOML file first.",
			},
			yes: "switch and drop the edits", no: "keep editing",
			onYes: func(a *App) tea.Cmd {
				a.bank.switchTo(next)
				return a.bank.changed(a)
			},
		}
	case key.Matches(msg, k.SaveBank):
		return v.startEdit(editSave, v.bank.Name+".toml")
	case key.Matches(msg, k.ScreenBank):
		return v.startScreen(a)
	}
	return nil
}

// editKey routes keys to the text input; ctrl+c quits from it too (q
// there is a letter).
func (v *bankTab) editKey(a *App, msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "ctrl+c":
		v.endEdit()
		return a.quit()
	case "enter":
		path, changed := v.commitEdit()
		if path != "" {
			return saveBankCmd(v.bank.Clone(), path, false)
		}
		if changed {
			if !strings.HasSuffix(v.source, " (edited)") {
				v.source += " (edited)"
			}
			return v.changed(a)
		}
		return nil
	case "esc":
		v.endEdit()
		v.refresh(a) // the preview drops the typed text
		return nil
	}
	var cmd tea.Cmd
	v.input, cmd = v.input.Update(msg)
	v.refresh(a) // the preview follows the typed text
	return cmd
}

// askRemove asks before x removes the selected condition's attribute
// (or neutral clause, or context probe) with all its conditions.
func (v *bankTab) askRemove(a *App) tea.Cmd {
	c := v.selected()
	what, n := v.removeWhat(c)
	if what == "" {
		v.status, v.statusErr = "the baseline cannot be removed", true
		return nil
	}
	conds := "its condition"
	if n != 1 {
		conds = fmt.Sprintf("its %d conditions", n)
	}
	a.modal = &confirm{
		title: "Remove?",
		lines: []string{
			fmt.Sprintf("Remove %s and %s from the bank?", what, conds),
			"The bank gets a new version; a adds an attribute back.",
		},
		yes: "remove", no: "keep",
		onYes: func(a *App) tea.Cmd {
			if a.bank.removeProbe(c) {
				return a.bank.changed(a)
			}
			return nil
		},
	}
	return nil
}

// onSaved reports a save; a file that exists is replaced only after
// asking.
func (v *bankTab) onSaved(a *App, msg bankSavedMsg) tea.Cmd {
	switch {
	case msg.exists:
		b := v.bank.Clone()
		a.modal = &confirm{
			title: "Replace the file?",
			lines: []string{
				msg.path + " exists. Replace it with the bank " + b.Name + "?",
				"n keeps the file; w again saves under another name.",
			},
			yes: "replace", no: "keep the file",
			onYes: func(*App) tea.Cmd { return saveBankCmd(b, msg.path, true) },
		}
	case msg.err != nil:
		v.status, v.statusErr = "save: "+msg.err.Error(), true
	default:
		v.status, v.statusErr = fmt.Sprintf("saved %s (bank %s · %s)", msg.path, msg.name, shortHash(msg.hash)), false
		v.source = msg.path
		v.savedHash = msg.hash
	}
	return nil
}

// changed follows a new bank version: the study and the preview use it,
// and the Run tab re-estimates.
func (v *bankTab) changed(a *App) tea.Cmd {
	a.study.Bank = v.bank
	v.refresh(a)
	return tea.Batch(a.replan(), v.refreshSignal(a), v.refreshOrder(a), v.diag.refresh(a, v.bank, v.task))
}
