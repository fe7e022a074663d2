package run

import (
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/ui/ratio"
	"github.com/prism-eval/prism/ui/tab"
)

// The Run tab's control: planning, starting, pausing and cancelling a
// run, applying its events, and scheduling the ratio panel.

// ErrScreening refuses a run while a screen of the bank is in flight.
var ErrScreening = errors.New("a screen of the bank is in progress: run when it ends")

// Spec is the engine spec of the form, the dataset and a snapshot of the
// bank (the Bank tab may edit the bank while a plan renders): what a
// screen of the bank runs too.
func (v *Tab) Spec() (engine.Spec, error) {
	cfg, lim, repeats, err := v.form.Config()
	if err != nil {
		return engine.Spec{}, err
	}
	ds := v.svc.Dataset()
	if ds == nil || ds.NumCandidates() == 0 {
		return engine.Spec{}, errors.New("the dataset is empty: import one on the Data tab (i)")
	}
	return engine.Spec{
		Dataset: ds, Bank: v.svc.Bank().Clone(), BankSource: v.svc.BankSource(),
		JudgeName: v.form.JudgeName(cfg), Config: cfg, Repeats: repeats, Limits: lim,
	}, nil
}

// studySpec is the spec of the study the Run tab starts: the bank's
// (Spec), or, when the form's study field names a rubric, that rubric's
// with the form's G-Eval N (prism run --rubric NAME --samples N). The
// ratings are stored under the same judge name as the bank's answers, so
// the Fit tab scores them as the judge's rubric baselines.
func (v *Tab) studySpec() (engine.Spec, error) {
	sp, err := v.Spec()
	if err != nil {
		return sp, err
	}
	r := v.form.Rubric()
	if r == nil {
		return sp, nil
	}
	n, err := v.form.Samples()
	if err != nil {
		return sp, err
	}
	sp.Bank, sp.BankSource = nil, ""
	sp.Rubric, sp.RubricSource, sp.Samples = r, "builtin:"+r.Name, n
	return sp, nil
}

// Replan asks for a fresh estimate; an older plan arriving later is
// dropped by its generation. The App asks for one when the study changes
// under the form (another dataset); the tab itself when the form, the
// bank (tab.BankChangedMsg) or the stored answers (tab.ReplanMsg) change.
func (v *Tab) Replan() tea.Cmd {
	v.planGen++
	v.plan = nil
	v.planErr = nil
	if v.svc.Store() == nil {
		v.planErr = tab.ErrNoWorkspace
		return nil
	}
	sp, err := v.studySpec()
	if err != nil {
		v.planErr = err
		return nil
	}
	v.planning = true
	return planCmd(v.svc.Context(), v.svc.Store(), sp, v.planGen)
}

func (v *Tab) onPlan(msg planMsg) tea.Cmd {
	if msg.gen != v.planGen {
		return nil
	}
	v.planning = false
	v.plan, v.planErr = msg.plan, msg.err
	if v.startPlanned {
		v.startPlanned = false
		return v.Start()
	}
	// A study with nothing left to send shows what is stored, not an
	// empty form or a run of nothing: on open, and when the judge or bank
	// changes to such a study; one with work left shows the form again.
	if lr := v.live; lr == nil || lr.phase == PhaseStored {
		if answered(msg.plan) {
			return v.showStored(msg.plan)
		}
		if lr != nil {
			v.live, v.signal, v.signalErr = nil, nil, nil
		}
	}
	return nil
}

// answered reports whether every request of p is answered in the
// workspace: nothing to send and nothing to copy from the cache.
func answered(p *engine.Plan) bool {
	return p != nil && p.Estimate.Requests > 0 && p.Estimate.Send+p.Estimate.CacheHits == 0
}

// showStored reads the stored progress of p's study for the Run tab.
func (v *Tab) showStored(p *engine.Plan) tea.Cmd {
	if v.svc.Store() == nil {
		return nil
	}
	return storedCmd(v.svc.Context(), v.svc.Store(), p)
}

// onStored shows the study read by storedCmd, with its final ratio panel
// computed from the stored answers, in place of the last run's; a plan
// that has changed since, or a run that has started, wins.
func (v *Tab) onStored(msg storedMsg) tea.Cmd {
	if msg.plan != v.plan || v.Active() {
		return nil
	}
	if msg.err != nil {
		v.planErr = fmt.Errorf("reading the stored study: %w", msg.err)
		return nil
	}
	p := msg.plan
	v.runPlan = p
	v.live = newStoredRun(newPlanRun(p), msg.progress, msg.rows)
	v.signal, v.signalErr = nil, nil
	v.showForm, v.pick = false, 0
	v.signalFinal = true
	return v.maybeSignal(true)
}

// Start starts the current plan, or waits for it when it is being made;
// it shows the Run tab.
func (v *Tab) Start() tea.Cmd {
	switch {
	case v.Active():
		return nil
	case v.svc.Busy() != "": // not the run: a screen of the bank
		v.planErr = ErrScreening
		return nil
	case v.planning:
		v.startPlanned = true
		return nil
	case v.plan == nil:
		return nil // the estimate pane shows why
	case answered(v.plan):
		// Nothing to send: s shows the stored answers, not a run of none.
		if lr := v.live; lr != nil && lr.phase == PhaseStored {
			v.showForm = false
			return v.show()
		}
		return tab.Batch(v.show(), v.showStored(v.plan))
	}
	p := v.plan
	v.runPlan = p
	v.live = newPlanRun(p)
	v.live.phase = PhaseStarting
	v.live.prog.Total = p.PendingCount()
	v.signal, v.signalErr = nil, nil
	v.showForm, v.pick = false, 0
	v.signalFinal = false
	return tab.Batch(v.show(), StartCmd(v.svc.Context(), v.svc.Store(), p, v.svc.Judges()))
}

// show shows the Run tab when another is shown (a start waited for its
// plan meanwhile).
func (v *Tab) show() tea.Cmd {
	if v.svc.Current() == tab.Run {
		return nil
	}
	return tab.Send(tab.OpenMsg{Tab: tab.Run})
}

func (v *Tab) onRunStarted(msg StartedMsg) tea.Cmd {
	lr := v.live
	if msg.Err != nil {
		lr.phase, lr.err = PhaseDone, fmt.Errorf("could not start: %w", msg.Err)
		return v.Replan()
	}
	v.active = msg.Run
	lr.phase = PhaseRunning
	return tea.Batch(Drain(msg.Run), v.maybeSignal(true))
}

func (v *Tab) onRunEvents(msg EventsMsg) tea.Cmd {
	if msg.Run != v.active || v.live == nil {
		return nil
	}
	for _, ev := range msg.Events {
		v.live.Apply(ev)
	}
	if msg.Closed {
		// Every event is in; the summary follows at once.
		return WaitDone(msg.Run)
	}
	return tea.Batch(Drain(msg.Run), v.maybeSignal(false))
}

// onRunDone ends the run: the Bank tab's report of its study is stale
// (tab.RunEndedMsg); so are fits of it when the run stored answers
// (tab.AnswersStoredMsg).
func (v *Tab) onRunDone(msg DoneMsg) tea.Cmd {
	if msg.Run != v.active {
		return nil
	}
	lr := v.live
	lr.phase = PhaseDone
	lr.summary = &msg.Summary
	lr.prog = msg.Summary.Progress
	lr.err = msg.Err
	v.active = nil
	v.signalFinal = true
	if v.svc.Quitting() {
		return tea.Quit
	}
	var told []tea.Cmd
	if p := v.runPlan; p != nil {
		k := study.Key{Dataset: p.Spec.Dataset.Name, Judge: p.Spec.JudgeName, BankHash: p.BankHash}
		told = append(told, tab.Send(tab.RunEndedMsg{Key: k}))
		if pr := msg.Summary.Progress; pr.Done > pr.Failed {
			told = append(told, tab.Send(tab.AnswersStoredMsg{Key: k, Rubric: p.IsRubric()}))
		}
	}
	return tab.Batch(append(told, v.maybeSignal(true), v.Replan())...)
}

// maybeSignal recomputes the ratio panel when none is being computed and
// the last was asked for at least ratio.Every ago, or three times as long
// as the last one took (so it never takes more than a third of a core on
// a large study); now skips the wait. After the run it computes the final
// panel with the full bootstrap once.
func (v *Tab) maybeSignal(now bool) tea.Cmd {
	lr := v.live
	if lr == nil || v.signalBusy || v.svc.Store() == nil || v.runPlan == nil {
		return nil
	}
	if lr.rubric != nil {
		// A rubric study has no neutral clauses: its panel counts the
		// criteria's ratings from the events instead.
		v.signalFinal = false
		return nil
	}
	final := v.signalFinal
	if !final && !now && v.svc.Now().Sub(v.signalAt) < max(ratio.Every, 3*v.signalCost) {
		return nil
	}
	p := v.runPlan
	b := ratio.LiveResamples
	if final {
		b = ratio.FinalResamples
		v.signalFinal = false
	}
	v.signalBusy = true
	v.signalAt = v.svc.Now()
	return signalCmd(v.svc.Context(), v.svc.Store(), p.Spec.Dataset.Name, p.Spec.JudgeName, p.BankHash, b, final)
}

func (v *Tab) onSignal(msg signalMsg) tea.Cmd {
	v.signalBusy = false
	if msg.err != nil {
		v.signalErr = msg.err
	} else {
		v.signal, v.signalErr = msg.view, nil
		v.signalCost = msg.view.Took
	}
	if v.signalFinal { // the run ended while a live panel was computing
		return v.maybeSignal(true)
	}
	return nil
}

// SignalNow recomputes the ratio panel of the run now, whatever its
// schedule (a test that has stored answers itself); final: with the
// final bootstrap, as after the run.
func (v *Tab) SignalNow(final bool) tea.Cmd {
	v.signalBusy = false
	v.signalFinal = v.signalFinal || final
	return v.maybeSignal(true)
}

// CancelForQuit cancels the run in flight, if one is, for a confirmed
// quit (which follows its end: Services.Quitting), and reports whether
// one was.
func (v *Tab) CancelForQuit() bool {
	if v.active == nil {
		return false
	}
	v.active.Cancel()
	v.live.phase = PhaseCanceling
	return true
}
