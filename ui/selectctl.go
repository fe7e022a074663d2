package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
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

// selectKey handles the Selection screen's own keys.
func (a *App) selectKey(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, a.keys.RunSelect) {
		return a.startSelect()
	}
	return nil
}

// startSelect (re)runs the selection on the current dataset, judge and
// bank version; a selection in flight is cancelled and its result dropped.
func (a *App) startSelect() tea.Cmd {
	v := &a.sel
	k, err := a.requireKey()
	if err != nil {
		v.err = err
		return nil
	}
	job, cmd := startSelectCmd(a.ctx, a.study.Store, k, calib.DefaultSelectOptions())
	v.start(job)
	return cmd
}

func (a *App) onSelectDone(msg jobDoneMsg[*calib.SelectReport]) tea.Cmd {
	v, j := &a.sel, msg.job
	if !v.finish(j) {
		return nil
	}
	v.rep, v.warnings, v.key, v.scroll = j.res, j.warnings, j.key, 0
	return nil
}
