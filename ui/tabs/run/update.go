package run

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// Keys are the Run tab's own bindings; its dashboard shows those
// that act now: pause and cancel while its run is going, start and the
// judge form otherwise, and enter on a response row.
func (v *Tab) Keys() []key.Binding {
	k := v.keys
	switch {
	case v.running():
		pause := k.Pause
		if v.live.prog.Paused {
			pause.SetHelp(k.Pause.Help().Key, "resume")
		}
		if v.formShown() {
			return []key.Binding{pause, k.Cancel}
		}
		return []key.Binding{pause, k.Cancel, k.Inspect}
	case v.Active(): // starting or canceling: nothing to pause or start
		if v.formShown() {
			return nil
		}
		return []key.Binding{k.Inspect}
	case v.formShown():
		return []key.Binding{k.Start}
	case v.live.phase == PhaseStored: // nothing left to start: the stored rows inspect
		return []key.Binding{k.EditJudge, k.Inspect}
	}
	return []key.Binding{k.Start, k.EditJudge, k.Inspect}
}

// running reports whether the Run tab's run is sending or paused:
// what pause and cancel act on.
func (v *Tab) running() bool { return v.live != nil && v.live.phase == PhaseRunning }

// Badge is the run's progress.
func (v *Tab) Badge() string {
	if v.Active() && v.live.prog.Total > 0 {
		return widgets.Percent(v.live.prog.Done, v.live.prog.Total)
	}
	return ""
}

func (v *Tab) Editing() bool { return v.form.editing }

// Update handles the Run tab's keys, navigation and form, the messages
// of its plan, its run and its ratio panel, and the changes of the study
// it replans on.
func (v *Tab) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.Move(msg.Delta)
	case tab.FocusMsg:
		return v.focus(msg.Right)
	case tab.ClickMsg:
		v.click(msg.X, msg.Y)
	case tea.KeyPressMsg:
		if v.form.editing {
			return v.editKey(msg)
		}
		return v.key(msg)
	case tab.BankChangedMsg, tab.ReplanMsg:
		return v.Replan()
	case planMsg:
		return v.onPlan(msg)
	case StartedMsg:
		return v.onRunStarted(msg)
	case EventsMsg:
		return v.onRunEvents(msg)
	case DoneMsg:
		return v.onRunDone(msg)
	case storedMsg:
		return v.onStored(msg)
	case signalMsg:
		return v.onSignal(msg)
	default:
		// A paste into the form's input.
		if v.form.editing {
			return v.form.Update(msg)
		}
	}
	return nil
}

// focus follows ← and →: on a choice field of the form (drawn ‹value›)
// they cycle its value, as the marks suggest; elsewhere they move
// between the panes.
func (v *Tab) focus(right bool) tea.Cmd {
	if v.formShown() && !v.focusRight && !v.Active() && v.form.OnChoice() {
		delta := -1
		if right {
			delta = 1
		}
		v.form.Cycle(delta)
		return v.Replan()
	}
	v.focusRight = right
	return nil
}

// click focuses the pane under a click; on the form it selects the field,
// on the dashboard the response row.
func (v *Tab) click(x, y int) {
	if v.formShown() {
		v.focusRight = x >= v.formWidth()
		if i := y - 2; !v.focusRight && i >= 0 && i < len(v.form.fields) && !v.form.editing {
			v.form.cursor = i
		}
		return
	}
	v.focusRight = x >= v.dashLeftWidth()
	if !v.focusRight {
		v.clickRow(y)
	}
}

// editKey routes keys to the form's text input: enter keeps the value and
// re-estimates, esc drops it, ctrl+c quits (q there is a letter).
func (v *Tab) editKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case msg.String() == "ctrl+c":
		v.form.Abort()
		return tab.Send(tab.QuitMsg{})
	case key.Matches(msg, v.keys.Enter):
		v.form.Commit()
		return v.Replan()
	case msg.String() == "esc":
		v.form.Abort()
		return nil
	}
	return v.form.Update(msg)
}

// key handles the Run tab's own keys.
func (v *Tab) key(msg tea.KeyPressMsg) tea.Cmd {
	k := v.keys
	switch {
	case key.Matches(msg, k.Start):
		if !v.Active() {
			return v.Start()
		}
	case key.Matches(msg, k.Pause):
		if v.active != nil && v.live.phase == PhaseRunning {
			if v.live.prog.Paused {
				v.active.Resume()
			} else {
				v.active.Pause()
			}
			v.live.prog.Paused = !v.live.prog.Paused
			v.live.prog.PauseReason = ""
		}
	case key.Matches(msg, k.Cancel):
		if v.active != nil && v.live.phase == PhaseRunning {
			v.active.Cancel()
			v.live.phase = PhaseCanceling
		}
	case key.Matches(msg, k.EditJudge):
		if !v.Active() {
			v.showForm = true
		}
	case key.Matches(msg, k.Back):
		if v.live != nil {
			v.showForm = false
		}
	case key.Matches(msg, k.Enter):
		return v.enter()
	}
	return nil
}

// enter edits the form's field, or inspects the selected response.
func (v *Tab) enter() tea.Cmd {
	if !v.formShown() {
		return v.inspectRow()
	}
	if v.Active() {
		return nil
	}
	changed, cmd := v.form.Activate()
	if changed {
		return v.Replan()
	}
	return cmd
}

// inspectRow opens the Inspect tab on the candidate of the latest
// responses' selected row (the App selects it on the Data tab too, and
// does nothing when a dataset switched since the run).
func (v *Tab) inspectRow() tea.Cmd {
	r, ok := v.Selected()
	if !ok {
		return nil
	}
	return tab.Send(tab.InspectMsg{Context: r.Context, Candidate: r.Candidate, Back: tab.Run})
}
