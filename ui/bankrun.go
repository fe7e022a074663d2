package ui

import (
	"context"
	"errors"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/tab"
	banktab "github.com/prism-eval/prism/ui/tabs/bank"
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
func (s services) Spec() (engine.Spec, error) { return s.a.spec() }
func (s services) RunActive() bool            { return s.a.run.active() }
func (s services) Quitting() bool             { return s.a.quitAfterRun }
func (s services) StartScreen(sp engine.Spec) tea.Cmd {
	return screenStartCmd(s.a.ctx, s.a.study.Store, sp, s.a.newJudges)
}

// Drain and Wait are the Run tab's drainEvents and waitDone, their
// messages the Bank tab's.
func (s services) Drain(r *engine.Run) tea.Cmd {
	cmd := drainEvents(r, r.Events())
	return func() tea.Msg {
		m := cmd().(runEventsMsg)
		return banktab.EventsMsg{Run: m.run, Events: m.events, Closed: m.closed}
	}
}

func (s services) Wait(r *engine.Run) tea.Cmd {
	cmd := waitDone(r)
	return func() tea.Msg {
		m := cmd().(runDoneMsg)
		return banktab.DoneMsg{Run: m.run, Summary: m.summary, Err: m.err}
	}
}

// screenStartCmd plans the screen and starts it with the Run tab's
// judges (startCmd); a plan with nothing to send does not start a run.
func screenStartCmd(ctx context.Context, st *store.Store, spec engine.Spec, newJudges judgeFactory) tea.Cmd {
	return func() tea.Msg {
		p, err := engine.NewPlan(ctx, st, spec)
		if err != nil {
			return banktab.StartedMsg{Err: err}
		}
		if len(p.Pending) == 0 {
			return banktab.StartedMsg{Plan: p}
		}
		m := startCmd(ctx, st, p, newJudges)().(runStartedMsg)
		return banktab.StartedMsg{Run: m.run, Plan: p, Err: m.err}
	}
}

// errScreening refuses a run while a screen is in flight.
var errScreening = errors.New("a screen of the bank is in progress: run when it ends")
