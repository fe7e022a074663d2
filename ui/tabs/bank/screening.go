package bank

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/prism-eval/prism/calib/signal"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/ratio"
	"github.com/prism-eval/prism/ui/tab"
)

// The Bank tab's signal screen (docs/protocol.md §8): the latest ratios of the
// bank's units, and the "screen this bank" action that runs the bank on a
// seeded sample of contexts through the engine, as `prism screen` does.

// The screen's defaults, those of `prism screen`.
const (
	ScreenContexts   = 20
	ScreenRuns       = 2
	ScreenSampleSeed = 42
)

// bankSignal is one computed report of the Bank tab's signal panel.
type bankSignal struct {
	view   *ratio.View // nil when there are no answers yet
	source string      // what the report was computed from
	err    error
}

// screening is a screen of the bank in flight.
type screening struct {
	key      study.Key
	run      *engine.Run // nil until started
	contexts []string    // the sampled context ids
	prog     engine.Progress
}

type (
	// bankSignalMsg carries a computed report for key.
	bankSignalMsg struct {
		key    study.Key
		sig    bankSignal
		gen    int  // the study versions' total when asked; older ones are stale
		screen bool // the report of a screen (its sample and runs)
	}
	// StartedMsg carries a started screen run (nil Run: nothing was left
	// to send), or why it could not start (Runner.StartScreen).
	StartedMsg struct {
		Run  *engine.Run
		Plan *engine.Plan
		Err  error
	}
	// EventsMsg is a batch of the screen run's events; Closed reports that
	// its events channel has closed (Runner.Drain).
	EventsMsg struct {
		Run    *engine.Run
		Events []engine.Event
		Closed bool
	}
	// DoneMsg is the screen run's summary once everything is stored
	// (Runner.Wait).
	DoneMsg struct {
		Run     *engine.Run
		Summary engine.Summary
		Err     error
	}
)

// bankSignalCmd reads the stored answers of key and computes docs/protocol.md
// §8's diagnostics off the UI goroutine. keep, when not nil, keeps only
// some rows (a screen's sample and runs).
func bankSignalCmd(ctx context.Context, st *store.Store, key study.Key, keep func(model.ScoreRow) bool, source string) tea.Cmd {
	return func() tea.Msg {
		rows, err := st.Scores(ctx, key.Dataset, key.Judge, key.BankHash)
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
		rep, err := signal.Signal(ctx, rows, signal.Options{Bootstrap: ratio.FinalResamples, Seed: 42})
		if err != nil {
			return bankSignalMsg{key: key, sig: bankSignal{source: source, err: err}}
		}
		v := ratio.FromReport(rep)
		v.Resamples, v.Final, v.Scores, v.Took = ratio.FinalResamples, true, len(rows), time.Since(start)
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

// refreshSignal computes the Bank tab's report from every stored
// answer of the current key, unless it is cached or being computed.
func (v *Tab) refreshSignal() tea.Cmd {
	k, ok := v.svc.Key()
	if !ok || v.sigBusy || v.screening != nil {
		return nil
	}
	if _, cached := v.sig[k]; cached {
		return nil
	}
	v.sigBusy = true
	return tagSignal(bankSignalCmd(v.svc.Context(), v.svc.Store(), k, nil, "all stored answers"), v.svc.Versions().Total(nil), false)
}

// tagSignal stamps a report command's message with its generation.
func tagSignal(cmd tea.Cmd, gen int, screen bool) tea.Cmd {
	return func() tea.Msg {
		m := cmd().(bankSignalMsg)
		m.gen, m.screen = gen, screen
		return m
	}
}

func (v *Tab) onSignal(msg bankSignalMsg) tea.Cmd {
	if msg.screen {
		return v.onScreenSignal(msg)
	}
	v.sigBusy = false
	if msg.gen != v.svc.Versions().Total(nil) { // computed before answers were added
		return v.refreshSignal()
	}
	v.sig[msg.key] = msg.sig
	if v.svc.Current() == tab.Bank {
		return v.refreshSignal() // the bank or judge may have changed meanwhile
	}
	return nil
}

// current is the cached report of the current key, if any.
func (v *Tab) current() (bankSignal, bool) {
	k, ok := v.svc.Key()
	if !ok {
		return bankSignal{}, false
	}
	s, ok := v.sig[k]
	return s, ok
}

// startScreen screens the bank: a seeded sample of ScreenContexts
// contexts, ScreenRuns runs each, through the engine and its cache.
func (v *Tab) startScreen() tea.Cmd {
	switch {
	case v.svc.Store() == nil:
		v.status, v.statusErr = tab.ErrNoWorkspace.Error(), true
		return nil
	case v.screening != nil:
		return nil
	case v.svc.RunActive():
		v.status, v.statusErr = "a run is in progress: screen when it ends", true
		return nil
	}
	sp, err := v.svc.Spec()
	if err != nil {
		v.status, v.statusErr = err.Error(), true
		return nil
	}
	k, _ := v.svc.Key()
	sp.Repeats = ScreenRuns
	sp.Dataset = signal.ScreenSample(sp.Dataset, ScreenContexts, ScreenSampleSeed)
	sc := &screening{key: k}
	for _, c := range sp.Dataset.Contexts {
		sc.contexts = append(sc.contexts, c.ID)
	}
	v.screening = sc
	v.status, v.statusErr = fmt.Sprintf("screening %d contexts × %d runs…", len(sc.contexts), ScreenRuns), false
	sp.Diagnostic = "screen"
	return v.svc.StartScreen(sp)
}

func (v *Tab) onScreenStarted(msg StartedMsg) tea.Cmd {
	sc := v.screening
	if sc == nil {
		return nil
	}
	if v.svc.Quitting() && msg.Run == nil {
		return tea.Quit
	}
	if msg.Err != nil {
		v.screening = nil
		v.status, v.statusErr = "screen: "+msg.Err.Error(), true
		return nil
	}
	if msg.Run == nil { // everything was answered already
		return v.screenSignal()
	}
	sc.run = msg.Run
	sc.prog.Total = len(msg.Plan.Pending)
	if v.svc.Quitting() { // quit was confirmed while the screen was starting
		msg.Run.Cancel()
	}
	return v.svc.Drain(msg.Run)
}

func (v *Tab) onScreenEvents(msg EventsMsg) tea.Cmd {
	sc := v.screening
	if n := len(msg.Events); n > 0 {
		sc.prog = msg.Events[n-1].Progress
	}
	if msg.Closed {
		return v.svc.Wait(msg.Run)
	}
	return v.svc.Drain(msg.Run)
}

func (v *Tab) onScreenDone(msg DoneMsg) tea.Cmd {
	if v.svc.Quitting() {
		return tea.Quit
	}
	sc := v.screening
	sc.prog = msg.Summary.Progress
	// Whatever the run stored changes the "all stored answers" report,
	// and the Run tab's estimate counts it as answered: the estimate
	// is the plan's, the same count `prism run --dry-run` prints.
	stored := v.dropSignal(sc.key, msg.Summary.Progress)
	var replan tea.Cmd
	if !v.svc.RunActive() {
		replan = tab.Send(tab.ReplanMsg{})
	}
	switch {
	case msg.Err != nil:
		v.screening = nil
		v.status, v.statusErr = "screen: "+msg.Err.Error(), true
		return tab.Batch(stored, replan)
	case msg.Summary.Canceled:
		v.screening = nil
		v.status, v.statusErr = "screen canceled; s resumes it", true
		return tab.Batch(stored, replan)
	}
	return tab.Batch(stored, replan, v.screenSignal())
}

// screenSignal computes the screen's report from its sample and runs; it
// replaces the cached report of the key until the bank or judge changes.
func (v *Tab) screenSignal() tea.Cmd {
	sc := v.screening
	source := fmt.Sprintf("screen: %d contexts × %d runs", len(sc.contexts), ScreenRuns)
	return tagSignal(bankSignalCmd(v.svc.Context(), v.svc.Store(), sc.key, screenRows(sc.contexts, ScreenRuns), source), v.svc.Versions().Total(nil), true)
}

// dropSignal forgets the report of key after a screen that finished with
// p and, when it stored answers, tells the App (which bumps the study's
// version: fits of key are stale, and a report being computed).
func (v *Tab) dropSignal(key study.Key, p engine.Progress) tea.Cmd {
	v.DropSignal(key)
	if p.Done > p.Failed {
		return tab.Send(tab.AnswersStoredMsg{Key: key})
	}
	return nil
}

// DropSignal forgets the report of key: a run stored answers of it.
func (v *Tab) DropSignal(key study.Key) {
	delete(v.sig, key)
	v.clampScroll()
}

// Screening is whether a screen of the bank is going.
func (v *Tab) Screening() bool { return v.screening != nil }

// CancelScreen cancels the screen going, if it has started (quit).
func (v *Tab) CancelScreen() {
	if v.screening != nil && v.screening.run != nil {
		v.screening.run.Cancel()
	}
}

// onScreenSignal takes the screen's report.
func (v *Tab) onScreenSignal(msg bankSignalMsg) tea.Cmd {
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
