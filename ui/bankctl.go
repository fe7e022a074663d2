package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
)

// The Bank screen's control: its keys, its text input, and the messages
// of its saves, signal reports and screens (screening.go).

// Keys are the Bank screen's own bindings.
func (v *bankScreen) Keys(a *App) []key.Binding {
	k := a.keys
	return []key.Binding{k.ScreenBank, k.Enter, k.Clause, k.AddAttr, k.DelAttr, k.NextBank, k.SaveBank}
}

// Badge is a screen's progress.
func (v *bankScreen) Badge(*App) string {
	if sc := v.screening; sc != nil && sc.prog.Total > 0 {
		return percent(sc.prog.Done, sc.prog.Total)
	}
	return ""
}

func (v *bankScreen) Editing() bool { return v.editing }

// Shown catches up with the Data screen's candidate and the study's key.
func (v *bankScreen) Shown(a *App) tea.Cmd {
	v.refresh(a)
	return v.refreshSignal(a)
}

// refresh renders the preview for the Data screen's candidate.
func (v *bankScreen) refresh(a *App) { v.Refresh(a.data.Context(), a.data.Candidate()) }

// Update handles the Bank screen's keys, navigation and text input, and
// the messages of its saves, signal reports and screens.
func (v *bankScreen) Update(a *App, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case moveMsg:
		v.Move(msg.delta)
		v.refresh(a)
	case focusMsg:
		v.Focus(msg.right)
	case clickMsg:
		v.Click(msg.x, msg.y)
		v.refresh(a)
	case tea.KeyPressMsg:
		if v.editing {
			return v.editKey(a, msg)
		}
		return v.key(a, msg)
	case bankSavedMsg:
		if msg.err != nil {
			v.status, v.statusErr = "save: "+msg.err.Error(), true
		} else {
			v.status, v.statusErr = "saved "+msg.path+" ("+shortHash(msg.hash)+")", false
			v.source = msg.path
		}
	case bankSignalMsg:
		return v.onSignal(a, msg)
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

// key handles the Bank screen's own keys.
func (v *bankScreen) key(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	c := v.selected()
	switch {
	case key.Matches(msg, k.Enter):
		if c.Probe == banks.ProbeBaseline || len(v.conds) == 0 {
			v.status, v.statusErr = "the baseline adds no instruction; pick a probe", true
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
		if v.removeSelected() {
			return v.changed(a)
		}
	case key.Matches(msg, k.NextBank):
		v.nextBuiltin()
		v.origHash = v.bank.Hash()
		return v.changed(a)
	case key.Matches(msg, k.SaveBank):
		return v.startEdit(editSave, v.bank.Name+".toml")
	case key.Matches(msg, k.ScreenBank):
		return v.startScreen(a)
	}
	return nil
}

// editKey routes keys to the text input; ctrl+c quits from it too (q
// there is a letter).
func (v *bankScreen) editKey(a *App, msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "ctrl+c":
		v.endEdit()
		return a.quit()
	case "enter":
		path, changed := v.commitEdit()
		if path != "" {
			return saveBankCmd(v.bank.Clone(), path)
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
		return nil
	}
	var cmd tea.Cmd
	v.input, cmd = v.input.Update(msg)
	return cmd
}

// changed follows a new bank version: the study and the preview use it,
// and the Run screen re-estimates.
func (v *bankScreen) changed(a *App) tea.Cmd {
	a.study.Bank = v.bank
	v.refresh(a)
	return tea.Batch(a.replan(), v.refreshSignal(a))
}
