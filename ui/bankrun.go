package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/tab"
	banktab "github.com/prism-eval/prism/ui/tabs/bank"
	runtab "github.com/prism-eval/prism/ui/tabs/run"
)

// What the Bank tab gets from the App beyond the study (bank.Services):
// the Data tab's candidate, and the Run tab's run machinery for a screen
// of the bank.

// newBankTab is the Bank tab of b for data of task.
func (a *App) newBankTab(b *banks.Bank, task string) *banktab.Tab {
	return banktab.New(services{a}, banktab.DefaultKeyMap(), a.keys.dialog(), b, task)
}

func (s services) Selected() (*model.Context, *model.Candidate) {
	return s.a.data.Context(), s.a.data.Candidate()
}
func (s services) Current() tab.ID            { return s.a.tab }
func (s services) Spec() (engine.Spec, error) { return s.a.run.Spec() }
func (s services) RunActive() bool            { return s.a.run.Active() }
func (s services) Quitting() bool             { return s.a.quitAfterRun }
func (s services) StartScreen(sp engine.Spec) tea.Cmd {
	return screenStartCmd(s.a.ctx, s.a.study.Store, sp, s.a.newJudges)
}

// Drain and Wait are the Run tab's Drain and WaitDone, their messages
// the Bank tab's.
func (s services) Drain(r *engine.Run) tea.Cmd {
	cmd := runtab.Drain(r)
	return func() tea.Msg {
		m := cmd().(runtab.EventsMsg)
		return banktab.EventsMsg{Run: m.Run, Events: m.Events, Closed: m.Closed}
	}
}

func (s services) Wait(r *engine.Run) tea.Cmd {
	cmd := runtab.WaitDone(r)
	return func() tea.Msg {
		m := cmd().(runtab.DoneMsg)
		return banktab.DoneMsg{Run: m.Run, Summary: m.Summary, Err: m.Err}
	}
}

// screenStartCmd plans the screen and starts it with the Run tab's
// judges (runtab.StartCmd); a plan with nothing to send does not start a run.
func screenStartCmd(ctx context.Context, st *store.Store, spec engine.Spec, newJudges runtab.JudgeFactory) tea.Cmd {
	return func() tea.Msg {
		p, err := engine.NewPlan(ctx, st, spec)
		if err != nil {
			return banktab.StartedMsg{Err: err}
		}
		if len(p.Pending) == 0 {
			return banktab.StartedMsg{Plan: p}
		}
		m := runtab.StartCmd(ctx, st, p, newJudges)().(runtab.StartedMsg)
		return banktab.StartedMsg{Run: m.Run, Plan: p, Err: m.Err}
	}
}
