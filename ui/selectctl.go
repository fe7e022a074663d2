package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/prism-eval/prism/calib/budget"
	"github.com/prism-eval/prism/calib/selection"
)

// The Selection screen's control: starting a selection, following its
// progress, and keeping its report.

// selectJudge names the judge whose answers a selection would use: the
// Run form's.
func (a *App) selectJudge() string {
	if k, ok := a.currentKey(); ok {
		return k.judge
	}
	return a.study.Judge
}

// Keys are the Selection screen's own bindings.
func (v *selectScreen) Keys(a *App) []key.Binding {
	return []key.Binding{a.keys.RunSelect, a.keys.Budget}
}

// Badge is the selection's progress.
func (v *selectScreen) Badge(*App) string {
	if v.job != nil && v.total > 0 {
		return percent(v.done, v.total)
	}
	return ""
}

func (v *selectScreen) Editing() bool { return false }

// Update handles the Selection screen's keys and navigation and the
// messages of its selection.
func (v *selectScreen) Update(a *App, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case moveMsg:
		v.Move(msg.delta)
	case focusMsg:
		v.Focus(msg.right)
	case clickMsg:
		v.focusRight = msg.x >= v.leftWidth()
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
func (v *selectScreen) rerun(a *App) tea.Cmd {
	k, err := a.requireKey()
	if err != nil {
		v.err = err
		return nil
	}
	job, cmd := startSelectCmd(a.ctx, a.study.Store, k, selection.DefaultOptions())
	v.start(job)
	return cmd
}

func (v *selectScreen) onDone(msg jobDoneMsg[*selection.Report]) {
	j := msg.job
	if !v.finish(j) {
		return
	}
	v.rep, v.warnings, v.key, v.scroll = j.res, j.warnings, j.key, 0
}
