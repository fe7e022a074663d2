package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib/budget"
	"github.com/prism-eval/prism/calib/selection"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// The Selection tab's control: starting a selection, following its
// progress, and keeping its report.

// selectJudge names the judge whose answers a selection would use: the
// Run form's.
func (a *App) selectJudge() string {
	if k, ok := a.currentKey(); ok {
		return k.Judge
	}
	return a.study.Judge
}

// Keys are the Selection tab's own bindings.
func (v *selectTab) Keys(a *App) []key.Binding {
	return []key.Binding{a.keys.RunSelect, a.keys.Budget}
}

// Badge is the selection's progress.
func (v *selectTab) Badge(*App) string {
	if v.job != nil && v.total > 0 {
		return widgets.Percent(v.done, v.total)
	}
	return ""
}

func (v *selectTab) Editing() bool { return false }

// Update handles the Selection tab's keys and navigation and the
// messages of its selection.
func (v *selectTab) Update(a *App, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.Move(msg.Delta)
	case tab.FocusMsg:
		v.Focus(msg.Right)
	case tab.ClickMsg:
		v.focusRight = msg.X >= v.leftWidth()
	case tea.KeyPressMsg:
		if key.Matches(msg, a.keys.RunSelect) {
			return v.rerun(a)
		}
		if key.Matches(msg, a.keys.Budget) {
			cur, _ := a.currentKey()
			return v.budget.toggle(a, cur)
		}
	case jobStartedMsg[*budget.Report], jobProgressMsg[*budget.Report], jobDoneMsg[*budget.Report]:
		return v.budget.update(msg)
	case jobStartedMsg[*selection.Report]:
		return msg.follow(&v.jobState)
	case jobProgressMsg[*selection.Report]:
		return msg.apply(&v.jobState)
	case jobDoneMsg[*selection.Report]:
		v.onDone(msg)
	}
	return nil
}

// rerun (re)runs the selection on the current dataset, judge and
// bank version; a selection in flight is cancelled and its result dropped.
func (v *selectTab) rerun(a *App) tea.Cmd {
	k, err := a.requireKey()
	if err != nil {
		v.err = err
		return nil
	}
	job, cmd := startSelectCmd(a.ctx, a.study.Store, k, selection.DefaultOptions())
	v.start(job)
	return cmd
}

func (v *selectTab) onDone(msg jobDoneMsg[*selection.Report]) {
	j := msg.job
	if !v.finish(j) {
		return
	}
	v.rep, v.warnings, v.key, v.scroll = j.res, j.warnings, j.key, 0
}
