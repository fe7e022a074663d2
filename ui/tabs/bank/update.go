package bank

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
func (v *Tab) Keys() []key.Binding {
	k := v.keys
	return []key.Binding{k.ScreenBank, k.Edit, k.Clause, k.AddAttr, k.DelAttr, k.NextBank, k.SaveBank}
}

// Badge is a screen's progress (of the bank).
func (v *Tab) Badge() string {
	if sc := v.screening; sc != nil && sc.prog.Total > 0 {
		return widgets.Percent(sc.prog.Done, sc.prog.Total)
	}
	return ""
}

func (v *Tab) Editing() bool { return v.editing }

// Shown catches up with the Data tab's candidate and the study's key.
func (v *Tab) Shown() tea.Cmd {
	v.refresh()
	defer v.clampScroll()
	return tea.Batch(v.refreshSignal(), v.refreshOrder(), v.diag.refresh(v.svc, v.bank, v.task))
}

// refresh renders the preview for the Data tab's candidate (the caller
// clamps the scroll).
func (v *Tab) refresh() { v.render(v.svc.Selected()) }

// Update handles the Bank tab's keys, navigation and text input, and
// the messages of its saves, signal reports and screens; then it fits
// the preview's scroll to what changed.
func (v *Tab) Update(msg tea.Msg) tea.Cmd {
	cmd := v.update(msg)
	v.clampScroll()
	return cmd
}

func (v *Tab) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.Move(msg.Delta)
		v.refresh()
	case tab.FocusMsg:
		v.Focus(msg.Right)
	case tab.ClickMsg:
		v.Click(msg.X, msg.Y)
		v.refresh()
	case tea.KeyPressMsg:
		if v.editing {
			return v.editKey(msg)
		}
		return v.key(msg)
	case bankSavedMsg:
		return v.onSaved(msg)
	case bankSignalMsg:
		return tea.Batch(v.onSignal(msg), v.refreshOrder(), v.diag.refresh(v.svc, v.bank, v.task))
	case orderMsg:
		return v.onOrder(msg)
	case diagMsg:
		return v.diag.onMsg(v.svc, v.bank, v.task, msg)
	case StartedMsg:
		return v.onScreenStarted(msg)
	case EventsMsg:
		if v.screening != nil && msg.Run == v.screening.run {
			return v.onScreenEvents(msg)
		}
	case DoneMsg:
		if v.screening != nil && msg.Run == v.screening.run {
			return v.onScreenDone(msg)
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
func (v *Tab) key(msg tea.KeyPressMsg) tea.Cmd {
	k := v.keys
	c := v.selected()
	switch {
	case key.Matches(msg, k.Edit):
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
		return v.askRemove()
	case key.Matches(msg, k.NextBank):
		next := v.nextBuiltin()
		if next == nil {
			return nil
		}
		if !v.Unsaved() {
			v.switchTo(next)
			return v.changed()
		}
		return v.confirm("Next bank?", []string{
			fmt.Sprintf("The bank %s (%.7s) has unsaved edits. Switch to %s and drop them?", v.bank.Name, v.bank.Hash(), next.Name),
			"n, then w, saves them as a TOML file first.",
		}, "switch and drop the edits", "keep editing", func() tea.Cmd {
			v.switchTo(next)
			return v.changed()
		})
	case key.Matches(msg, k.SaveBank):
		return v.startEdit(editSave, v.bank.Name+".toml")
	case key.Matches(msg, k.ScreenBank):
		return v.startScreen()
	}
	return nil
}

// editKey routes keys to the text input; ctrl+c quits from it too (q
// there is a letter).
func (v *Tab) editKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "ctrl+c":
		v.endEdit()
		return tab.Send(tab.QuitMsg{})
	case "enter":
		path, changed := v.commitEdit()
		if path != "" {
			return saveBankCmd(v.bank.Clone(), path, false)
		}
		if changed {
			if !strings.HasSuffix(v.source, " (edited)") {
				v.source += " (edited)"
			}
			return v.changed()
		}
		return nil
	case "esc":
		v.endEdit()
		v.refresh() // the preview drops the typed text
		return nil
	}
	var cmd tea.Cmd
	v.input, cmd = v.input.Update(msg)
	v.refresh() // the preview follows the typed text
	return cmd
}

// askRemove asks before x removes the selected condition's attribute
// (or neutral clause, or context probe) with all its conditions.
func (v *Tab) askRemove() tea.Cmd {
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
	return v.confirm("Remove?", []string{
		fmt.Sprintf("Remove %s and %s from the bank?", what, conds),
		"The bank gets a new version; a adds an attribute back.",
	}, "remove", "keep", func() tea.Cmd {
		if v.removeProbe(c) {
			return v.changed()
		}
		return nil
	})
}

// onSaved reports a save; a file that exists is replaced only after
// asking.
func (v *Tab) onSaved(msg bankSavedMsg) tea.Cmd {
	switch {
	case msg.exists:
		b := v.bank.Clone()
		return v.confirm("Replace the file?", []string{
			msg.path + " exists. Replace it with the bank " + b.Name + "?",
			"n keeps the file; w again saves under another name.",
		}, "replace", "keep the file", func() tea.Cmd { return saveBankCmd(b, msg.path, true) })
	case msg.err != nil:
		v.status, v.statusErr = "save: "+msg.err.Error(), true
	default:
		v.status, v.statusErr = fmt.Sprintf("saved %s (bank %s · %s)", msg.path, msg.name, widgets.ShortHash(msg.hash)), false
		v.source = msg.path
		v.savedHash = msg.hash
	}
	return nil
}

// changed follows a new bank version: the study and the preview use it,
// and the Run tab re-estimates (the App replans on tab.BankChangedMsg).
func (v *Tab) changed() tea.Cmd {
	v.refresh()
	return tea.Batch(tab.Send(tab.BankChangedMsg{Bank: v.bank}), v.refreshSignal(), v.refreshOrder(), v.diag.refresh(v.svc, v.bank, v.task))
}

// confirm asks a question before onYes (a widgets.Confirm over the tab).
func (v *Tab) confirm(title string, lines []string, yes, no string, onYes func() tea.Cmd) tea.Cmd {
	return tab.Send(tab.OpenDialogMsg{Dialog: &widgets.Confirm{Styles: v.svc.Styles(), Title: title, Lines: lines,
		YesText: yes, NoText: no, Yes: v.dialogKeys.Yes, No: v.dialogKeys.No, OnYes: onYes}})
}
