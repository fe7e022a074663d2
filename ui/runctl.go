package ui

import (
	"errors"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// The Run tab's control: planning, starting, pausing and cancelling a
// run, applying its events, and scheduling the ratio panel.

var errNoWorkspace = tab.ErrNoWorkspace

// spec builds the engine spec of the form, the dataset and a snapshot of
// the bank (the Bank tab may edit the bank while a plan renders).
func (a *App) spec() (engine.Spec, error) {
	cfg, lim, repeats, err := a.run.form.Config()
	if err != nil {
		return engine.Spec{}, err
	}
	if a.study.Dataset == nil || a.study.Dataset.NumCandidates() == 0 {
		return engine.Spec{}, errors.New("the dataset is empty: import one on the Data tab (i)")
	}
	return engine.Spec{
		Dataset: a.study.Dataset, Bank: a.bank.Bank().Clone(), BankSource: a.bank.Source(),
		JudgeName: a.run.form.JudgeName(cfg), Config: cfg, Repeats: repeats, Limits: lim,
	}, nil
}

// studySpec is the spec of the study the Run tab starts: the bank's
// (spec), or, when the form's study field names a rubric, that rubric's
// with the form's G-Eval N (prism run --rubric NAME --samples N). The
// ratings are stored under the same judge name as the bank's answers, so
// the Fit tab scores them as the judge's rubric baselines.
func (a *App) studySpec() (engine.Spec, error) {
	sp, err := a.spec()
	if err != nil {
		return sp, err
	}
	r := a.run.form.Rubric()
	if r == nil {
		return sp, nil
	}
	n, err := a.run.form.Samples()
	if err != nil {
		return sp, err
	}
	sp.Bank, sp.BankSource = nil, ""
	sp.Rubric, sp.RubricSource, sp.Samples = r, "builtin:"+r.Name, n
	return sp, nil
}

// replan asks for a fresh estimate; an older plan arriving later is
// dropped by its generation.
func (a *App) replan() tea.Cmd {
	a.planGen++
	a.run.plan = nil
	a.run.planErr = nil
	if a.study.Store == nil {
		a.run.planErr = errNoWorkspace
		return nil
	}
	sp, err := a.studySpec()
	if err != nil {
		a.run.planErr = err
		return nil
	}
	a.run.planning = true
	return planCmd(a.ctx, a.study.Store, sp, a.planGen)
}

func (a *App) onPlan(msg planMsg) tea.Cmd {
	if msg.gen != a.planGen {
		return nil
	}
	a.run.planning = false
	a.run.plan, a.run.planErr = msg.plan, msg.err
	if a.startPlanned {
		a.startPlanned = false
		return a.start()
	}
	// A study with nothing left to send shows what is stored, not an
	// empty form or a run of nothing: on open, and when the judge or bank
	// changes to such a study; one with work left shows the form again.
	if lr := a.run.live; lr == nil || lr.phase == phaseStored {
		if answered(msg.plan) {
			return a.showStored(msg.plan)
		}
		if lr != nil {
			a.run.live, a.run.signal, a.run.signalErr = nil, nil, nil
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
func (a *App) showStored(p *engine.Plan) tea.Cmd {
	if a.study.Store == nil {
		return nil
	}
	return storedCmd(a.ctx, a.study.Store, p)
}

// onStored shows the study read by storedCmd, with its final ratio panel
// computed from the stored answers, in place of the last run's; a plan
// that has changed since, or a run that has started, wins.
func (v *runTab) onStored(a *App, msg storedMsg) tea.Cmd {
	if msg.plan != v.plan || v.active() {
		return nil
	}
	if msg.err != nil {
		v.planErr = fmt.Errorf("reading the stored study: %w", msg.err)
		return nil
	}
	p := msg.plan
	a.runPlan = p
	v.live = newStoredRun(newPlanRun(p), msg.progress, msg.rows)
	v.signal, v.signalErr = nil, nil
	v.showForm, v.pick = false, 0
	v.signalFinal = true
	return v.maybeSignal(a, true)
}

// start starts the current plan, or waits for it when it is being made.
func (a *App) start() tea.Cmd {
	switch {
	case a.run.active():
		return nil
	case a.bank.Screening():
		a.run.planErr = errScreening
		return nil
	case a.run.planning:
		a.startPlanned = true
		return nil
	case a.run.plan == nil:
		return nil // the estimate pane shows why
	case answered(a.run.plan):
		// Nothing to send: s shows the stored answers, not a run of none.
		a.tab = tab.Run
		if lr := a.run.live; lr != nil && lr.phase == phaseStored {
			a.run.showForm = false
			return nil
		}
		return a.showStored(a.run.plan)
	}
	p := a.run.plan
	a.runPlan = p
	a.run.live = newPlanRun(p)
	a.run.live.phase = phaseStarting
	a.run.live.prog.Total = p.PendingCount()
	a.run.signal, a.run.signalErr = nil, nil
	a.run.showForm, a.run.pick = false, 0
	a.run.signalFinal = false
	a.tab = tab.Run
	return startCmd(a.ctx, a.study.Store, p, a.newJudges)
}

func (v *runTab) onRunStarted(a *App, msg runStartedMsg) tea.Cmd {
	lr := v.live
	if msg.err != nil {
		lr.phase, lr.err = phaseDone, fmt.Errorf("could not start: %w", msg.err)
		return a.replan()
	}
	a.active = msg.run
	lr.phase = phaseRunning
	return tea.Batch(waitEvents(msg.run), v.maybeSignal(a, true))
}

func (v *runTab) onRunEvents(a *App, msg runEventsMsg) tea.Cmd {
	if msg.run != a.active || v.live == nil {
		return nil
	}
	for _, ev := range msg.events {
		v.live.Apply(ev)
	}
	if msg.closed {
		// Every event is in; the summary follows at once.
		return waitDone(msg.run)
	}
	return tea.Batch(waitEvents(msg.run), v.maybeSignal(a, false))
}

func (v *runTab) onRunDone(a *App, msg runDoneMsg) tea.Cmd {
	if msg.run != a.active {
		return nil
	}
	lr := v.live
	lr.phase = phaseDone
	lr.summary = &msg.summary
	lr.prog = msg.summary.Progress
	lr.err = msg.err
	a.active = nil
	v.signalFinal = true
	if p := a.runPlan; p != nil {
		k := studyKey{Dataset: p.Spec.Dataset.Name, Judge: p.Spec.JudgeName, BankHash: p.BankHash}
		// The Bank tab's report of k is stale; so are fits of k when the
		// run stored answers.
		a.bank.DropSignal(k)
		if pr := msg.summary.Progress; pr.Done > pr.Failed {
			a.versions.Bump(k)
			if p.IsRubric() {
				// The judge's fits score these ratings as their baselines.
				a.versions.Bump(k.Rubric())
			}
		}
	}
	if a.quitAfterRun {
		return tea.Quit
	}
	return tea.Batch(v.maybeSignal(a, true), a.replan())
}

// maybeSignal recomputes the ratio panel when none is being computed and
// the last was asked for at least signalEvery ago, or three times as long
// as the last one took (so it never takes more than a third of a core on
// a large study); now skips the wait. After the run it computes the final
// panel with the full bootstrap once.
func (v *runTab) maybeSignal(a *App, now bool) tea.Cmd {
	lr := v.live
	if lr == nil || v.signalBusy || a.study.Store == nil || a.runPlan == nil {
		return nil
	}
	if lr.rubric != nil {
		// A rubric study has no neutral clauses: its panel counts the
		// criteria's ratings from the events instead.
		v.signalFinal = false
		return nil
	}
	final := v.signalFinal
	if !final && !now && a.now().Sub(v.signalAt) < max(signalEvery, 3*v.signalCost) {
		return nil
	}
	p := a.runPlan
	b := liveResamples
	if final {
		b = finalResamples
		v.signalFinal = false
	}
	v.signalBusy = true
	v.signalAt = a.now()
	return signalCmd(a.ctx, a.study.Store, p.Spec.Dataset.Name, p.Spec.JudgeName, p.BankHash, b, final)
}

func (v *runTab) onSignal(a *App, msg signalMsg) tea.Cmd {
	v.signalBusy = false
	if msg.err != nil {
		v.signalErr = msg.err
	} else {
		v.signal, v.signalErr = msg.view, nil
		v.signalCost = msg.view.Took
	}
	if v.signalFinal { // the run ended while a live panel was computing
		return v.maybeSignal(a, true)
	}
	return nil
}

// Keys are the Run tab's own bindings; its dashboard shows those
// that act now: pause and cancel while its run is going, start and the
// judge form otherwise, and enter on a response row.
func (v *runTab) Keys(a *App) []key.Binding {
	k := a.keys
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
	case v.active(): // starting or canceling: nothing to pause or start
		if v.formShown() {
			return nil
		}
		return []key.Binding{k.Inspect}
	case v.formShown():
		return []key.Binding{k.Start}
	case v.live.phase == phaseStored: // nothing left to start, no response rows
		return []key.Binding{k.EditJudge}
	}
	return []key.Binding{k.Start, k.EditJudge, k.Inspect}
}

// running reports whether the Run tab's run is sending or paused:
// what pause and cancel act on.
func (v *runTab) running() bool { return v.live != nil && v.live.phase == phaseRunning }

// Badge is the run's progress.
func (v *runTab) Badge(*App) string {
	if v.active() && v.live.prog.Total > 0 {
		return widgets.Percent(v.live.prog.Done, v.live.prog.Total)
	}
	return ""
}

func (v *runTab) Editing() bool { return v.form.editing }

// Update handles the Run tab's keys, navigation and form, and the
// messages of the App's run and of the ratio panel.
func (v *runTab) Update(a *App, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.Move(msg.Delta)
	case tab.FocusMsg:
		v.Focus(msg.Right)
	case tab.ClickMsg:
		v.click(msg.X, msg.Y)
	case tea.KeyPressMsg:
		if v.form.editing {
			return v.editKey(a, msg)
		}
		return v.key(a, msg)
	case runStartedMsg:
		return v.onRunStarted(a, msg)
	case runEventsMsg:
		return v.onRunEvents(a, msg)
	case runDoneMsg:
		return v.onRunDone(a, msg)
	case storedMsg:
		return v.onStored(a, msg)
	case signalMsg:
		return v.onSignal(a, msg)
	default:
		// A paste into the form's input.
		if v.form.editing {
			return v.form.Update(msg)
		}
	}
	return nil
}

// click focuses the pane under a click; on the form it selects the field,
// on the dashboard the response row.
func (v *runTab) click(x, y int) {
	if v.formShown() {
		v.focusRight = x >= max(v.width*2/5, 36)
		if i := y - 2; !v.focusRight && i >= 0 && i < len(v.form.fields) && !v.form.editing {
			v.form.cursor = i
		}
		return
	}
	v.focusRight = x >= max(v.width*2/5, 32)
	if !v.focusRight {
		v.ClickRow(y)
	}
}

// editKey routes keys to the form's text input: enter keeps the value and
// re-estimates, esc drops it, ctrl+c quits (q there is a letter).
func (v *runTab) editKey(a *App, msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case msg.String() == "ctrl+c":
		v.form.Abort()
		return a.quit()
	case key.Matches(msg, a.keys.Enter):
		v.form.Commit()
		return a.replan()
	case msg.String() == "esc":
		v.form.Abort()
		return nil
	}
	return v.form.Update(msg)
}

// key handles the Run tab's own keys.
func (v *runTab) key(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	rv := v
	switch {
	case key.Matches(msg, k.Start):
		if !rv.active() {
			return a.start()
		}
	case key.Matches(msg, k.Pause):
		if a.active != nil && rv.live.phase == phaseRunning {
			if rv.live.prog.Paused {
				a.active.Resume()
			} else {
				a.active.Pause()
			}
			rv.live.prog.Paused = !rv.live.prog.Paused
			rv.live.prog.PauseReason = ""
		}
	case key.Matches(msg, k.Cancel):
		if a.active != nil && rv.live.phase == phaseRunning {
			a.active.Cancel()
			rv.live.phase = phaseCanceling
		}
	case key.Matches(msg, k.EditJudge):
		if !rv.active() {
			rv.showForm = true
		}
	case key.Matches(msg, k.Back):
		if rv.live != nil {
			rv.showForm = false
		}
	case key.Matches(msg, k.Enter):
		if rv.formShown() {
			if rv.active() {
				return nil
			}
			changed, cmd := rv.form.Activate()
			if changed {
				return a.replan()
			}
			return cmd
		}
		return v.inspectRow(a)
	}
	return nil
}

// inspectRow opens the Inspect tab on the candidate of the latest
// responses' selected row, selecting it on the Data tab too.
func (v *runTab) inspectRow(a *App) tea.Cmd {
	r, ok := v.Selected()
	if !ok {
		return nil
	}
	if !a.data.SelectCandidate(r.Context, r.Candidate) {
		return nil // a dataset switched since the run: the row is not in it
	}
	return a.insp.open(a, tab.Run)
}
