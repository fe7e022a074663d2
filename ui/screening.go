package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/prism-eval/prism/calib/signal"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// The Bank screen's signal screen (docs/protocol.md §8): the latest ratios of the
// bank's units, and the "screen this bank" action that runs the bank on a
// seeded sample of contexts through the engine, as `prism screen` does.

// The screen's defaults, those of `prism screen`.
const (
	screenContexts   = 20
	screenRuns       = 2
	screenSampleSeed = 42
)

// bankSignal is one computed report of the Bank screen's signal panel.
type bankSignal struct {
	view   *signalView // nil when there are no answers yet
	source string      // what the report was computed from
	err    error
}

// screening is a screen of the bank in flight.
type screening struct {
	key      studyKey
	run      *engine.Run // nil until started
	contexts []string    // the sampled context ids
	prog     engine.Progress
	canceled bool
}

type (
	// bankSignalMsg carries a computed report for key.
	bankSignalMsg struct {
		key    studyKey
		sig    bankSignal
		gen    int  // the App's sigGen when asked; older ones are stale
		screen bool // the report of a screen (its sample and runs)
	}
	// screenStartedMsg carries a started screen run (nil run: nothing
	// was left to send), or why it could not start.
	screenStartedMsg struct {
		run  *engine.Run
		plan *engine.Plan
		err  error
	}
)

// bankSignalCmd reads the stored answers of key and computes docs/protocol.md
// §8's diagnostics off the UI goroutine. keep, when not nil, keeps only
// some rows (a screen's sample and runs).
func bankSignalCmd(ctx context.Context, st *store.Store, key studyKey, keep func(model.ScoreRow) bool, source string) tea.Cmd {
	return func() tea.Msg {
		rows, err := st.Scores(ctx, key.dataset, key.judge, key.bankHash)
		if err != nil {
			return bankSignalMsg{key: key, sig: bankSignal{err: fmt.Errorf("reading scores: %w", err)}}
		}
		if keep != nil {
			rows = slices.DeleteFunc(rows, func(r model.ScoreRow) bool { return !keep(r) })
		}
		if len(rows) == 0 {
			return bankSignalMsg{key: key, sig: bankSignal{source: source}}
		}
		start := time.Now()
		rep, err := signal.Signal(ctx, rows, signal.Options{Bootstrap: finalResamples, Seed: 42})
		if err != nil {
			return bankSignalMsg{key: key, sig: bankSignal{source: source, err: err}}
		}
		v := signalFromReport(rep)
		v.Resamples, v.Final, v.Scores, v.Took = finalResamples, true, len(rows), time.Since(start)
		return bankSignalMsg{key: key, sig: bankSignal{view: v, source: source}}
	}
}

// screenRows keeps the rows of a screen: its sampled contexts and runs
// 0…runs−1 (the workspace may hold a full run or more repeats).
func screenRows(contexts []string, runs int) func(model.ScoreRow) bool {
	in := make(map[string]bool, len(contexts))
	for _, id := range contexts {
		in[id] = true
	}
	return func(r model.ScoreRow) bool {
		run, err := strconv.Atoi(r.Run)
		return in[r.Context] && err == nil && run >= 0 && run < runs
	}
}

// screenStartCmd plans the screen and starts it with the Run screen's
// judges (startCmd); a plan with nothing to send does not start a run.
func screenStartCmd(ctx context.Context, st *store.Store, spec engine.Spec, newJudges judgeFactory) tea.Cmd {
	return func() tea.Msg {
		p, err := engine.NewPlan(ctx, st, spec)
		if err != nil {
			return screenStartedMsg{err: err}
		}
		if len(p.Pending) == 0 {
			return screenStartedMsg{plan: p}
		}
		m := startCmd(ctx, st, p, newJudges)().(runStartedMsg)
		return screenStartedMsg{run: m.run, plan: p, err: m.err}
	}
}

// refreshSignal computes the Bank screen's report from every stored
// answer of the current key, unless it is cached or being computed.
func (v *bankScreen) refreshSignal(a *App) tea.Cmd {
	k, ok := a.currentKey()
	if !ok || v.sigBusy || v.screening != nil {
		return nil
	}
	if _, cached := v.sig[k]; cached {
		return nil
	}
	v.sigBusy = true
	return tagSignal(bankSignalCmd(a.ctx, a.study.Store, k, nil, "all stored answers"), a.sigGen, false)
}

// tagSignal stamps a report command's message with its generation.
func tagSignal(cmd tea.Cmd, gen int, screen bool) tea.Cmd {
	return func() tea.Msg {
		m := cmd().(bankSignalMsg)
		m.gen, m.screen = gen, screen
		return m
	}
}

func (v *bankScreen) onSignal(a *App, msg bankSignalMsg) tea.Cmd {
	if msg.screen {
		return v.onScreenSignal(msg)
	}
	v.sigBusy = false
	if msg.gen != a.sigGen { // computed before answers were added
		return v.refreshSignal(a)
	}
	v.sig[msg.key] = msg.sig
	if a.screen == screenBank {
		return v.refreshSignal(a) // the bank or judge may have changed meanwhile
	}
	return nil
}

// current is the cached report of the current key, if any.
func (v *bankScreen) current(a *App) (bankSignal, bool) {
	k, ok := a.currentKey()
	if !ok {
		return bankSignal{}, false
	}
	s, ok := v.sig[k]
	return s, ok
}

// startScreen screens the bank: a seeded sample of screenContexts
// contexts, screenRuns runs each, through the engine and its cache.
func (v *bankScreen) startScreen(a *App) tea.Cmd {
	switch {
	case a.study.Store == nil:
		v.status, v.statusErr = errNoWorkspace.Error(), true
		return nil
	case v.screening != nil:
		return nil
	case a.run.active():
		v.status, v.statusErr = "a run is in progress: screen when it ends", true
		return nil
	}
	sp, err := a.spec()
	if err != nil {
		v.status, v.statusErr = err.Error(), true
		return nil
	}
	k, _ := a.currentKey()
	sp.Repeats = screenRuns
	sp.Dataset = signal.ScreenSample(sp.Dataset, screenContexts, screenSampleSeed)
	sc := &screening{key: k}
	for _, c := range sp.Dataset.Contexts {
		sc.contexts = append(sc.contexts, c.ID)
	}
	v.screening = sc
	v.status, v.statusErr = fmt.Sprintf("screening %d contexts × %d runs…", len(sc.contexts), screenRuns), false
	sp.Diagnostic = "screen"
	return screenStartCmd(a.ctx, a.study.Store, sp, a.newJudges)
}

func (v *bankScreen) onScreenStarted(a *App, msg screenStartedMsg) tea.Cmd {
	sc := v.screening
	if sc == nil {
		return nil
	}
	if a.quitAfterRun && msg.run == nil {
		return tea.Quit
	}
	if msg.err != nil {
		v.screening = nil
		v.status, v.statusErr = "screen: "+msg.err.Error(), true
		return nil
	}
	if msg.run == nil { // everything was answered already
		return v.screenSignal(a)
	}
	sc.run = msg.run
	sc.prog.Total = len(msg.plan.Pending)
	if a.quitAfterRun { // quit was confirmed while the screen was starting
		msg.run.Cancel()
	}
	return drainEvents(msg.run, msg.run.Events())
}

func (v *bankScreen) onScreenEvents(msg runEventsMsg) tea.Cmd {
	sc := v.screening
	if n := len(msg.events); n > 0 {
		sc.prog = msg.events[n-1].Progress
	}
	if msg.closed {
		return waitDone(msg.run)
	}
	return drainEvents(msg.run, msg.run.Events())
}

func (v *bankScreen) onScreenDone(a *App, msg runDoneMsg) tea.Cmd {
	if a.quitAfterRun {
		return tea.Quit
	}
	sc := v.screening
	sc.prog = msg.summary.Progress
	// Whatever the run stored changes the "all stored answers" report,
	// and the Run screen's estimate counts it as answered: the estimate
	// is the plan's, the same count `prism run --dry-run` prints.
	v.dropSignal(a, sc.key, msg.summary.Progress)
	var replan tea.Cmd
	if !a.run.active() {
		replan = a.replan()
	}
	switch {
	case msg.err != nil:
		v.screening = nil
		v.status, v.statusErr = "screen: "+msg.err.Error(), true
		return replan
	case msg.summary.Canceled:
		v.screening = nil
		v.status, v.statusErr = "screen canceled; s resumes it", true
		return replan
	}
	return tea.Batch(replan, v.screenSignal(a))
}

// screenSignal computes the screen's report from its sample and runs; it
// replaces the cached report of the key until the bank or judge changes.
func (v *bankScreen) screenSignal(a *App) tea.Cmd {
	sc := v.screening
	source := fmt.Sprintf("screen: %d contexts × %d runs", len(sc.contexts), screenRuns)
	return tagSignal(bankSignalCmd(a.ctx, a.study.Store, sc.key, screenRows(sc.contexts, screenRuns), source), a.sigGen, true)
}

// dropSignal forgets the report of key after a run or screen that
// finished with p; one being computed is stale. Fits of key are stale
// when the run stored answers.
func (v *bankScreen) dropSignal(a *App, key studyKey, p engine.Progress) {
	delete(v.sig, key)
	a.sigGen++
	if p.Done > p.Failed {
		a.answers[key]++
		a.stored++
	}
}

// onScreenSignal takes the screen's report.
func (v *bankScreen) onScreenSignal(msg bankSignalMsg) tea.Cmd {
	v.screening = nil
	v.sig[msg.key] = msg.sig
	switch s := msg.sig; {
	case s.err != nil:
		v.status, v.statusErr = "screen: "+s.err.Error(), true
	case s.view == nil:
		v.status, v.statusErr = "screen: no answers were stored", true
	default:
		pass, few := 0, 0
		for _, r := range s.view.Rows {
			switch {
			case r.Pass:
				pass++
			case r.HasSignal && r.TooFew:
				few++
			}
		}
		v.status, v.statusErr = fmt.Sprintf("screened: %d of %d units pass", pass, len(s.view.Rows)), false
		if few > 0 {
			v.status += fmt.Sprintf(", %d too few to judge", few)
		}
	}
	return nil
}

// errScreening refuses a run while a screen is in flight.
var errScreening = errors.New("a screen of the bank is in progress: run when it ends")
