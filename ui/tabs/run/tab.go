package run

import (
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/ratio"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// Services is what the Run tab needs from the App.
type Services interface {
	tab.Styles
	tab.Clock
	// Busy names the App's work going (tab.Jobs): a run does not start
	// during a screen of the bank.
	tab.Jobs
	// Store is the open workspace, nil when none is.
	Store() *store.Store
	// Dataset is the open dataset; Bank the Bank tab's bank and
	// BankSource where it came from ("builtin:NAME" or a file).
	Dataset() *model.Dataset
	Bank() *banks.Bank
	BankSource() string
	// Judges builds the judges of a run (tests swap in slow or failing
	// ones).
	Judges() JudgeFactory
	// Current is the tab shown now (a start shows the Run tab).
	Current() tab.ID
	// Quitting is whether quit was confirmed while the run was going:
	// its end quits.
	Quitting() bool
}

// Tab is the Run tab: before a run, the judge form and the estimate;
// once started, the progress line, the latest responses, and per
// attribute the Δ distributions and the RMS ratio against the neutral
// clauses. It owns its run (the engine's handle and its plan);
// control.go starts and follows it.
type Tab struct {
	svc  Services
	keys KeyMap

	form     runForm
	plan     *engine.Plan
	planErr  error
	planning bool
	planGen  int

	// The run in flight (nil when none), the plan of the current or last
	// run, and whether to start as soon as the plan of planGen arrives.
	active       *engine.Run
	runPlan      *engine.Plan
	startPlanned bool

	live      *Live // nil before the first run
	signal    *ratio.View
	signalErr error

	// The ratio panel's schedule (control.go's maybeSignal).
	signalBusy  bool
	signalAt    time.Time     // when the last recomputation was asked for
	signalCost  time.Duration // how long the last one took
	signalFinal bool          // the run has ended and the final panel is owed

	// pick is 1 + the sequence number (Live.At) of the latest-responses
	// row under the cursor, so that the cursor stays on its result while
	// newer ones push the table down; 0 for none.
	pick int

	showForm      bool // the form, also after a run (e edits)
	focusRight    bool
	width, height int
}

// New is the Run tab with its form on cfg (zero: judge.Defaults()).
func New(svc Services, keys KeyMap, cfg judge.Config) *Tab {
	return &Tab{svc: svc, keys: keys, form: newRunForm(cfg)}
}

// Judge is the form's judge configuration and the name its answers are
// stored under, or the form's error: the study key's judge.
func (v *Tab) Judge() (cfg judge.Config, name string, err error) {
	cfg, _, _, err = v.form.Config()
	if err != nil {
		return cfg, "", err
	}
	return cfg, v.form.JudgeName(cfg), nil
}

func (v *Tab) SetSize(w, h int) {
	v.width, v.height = w, h
	v.form.SetWidth(v.formWidth() - widgets.PaneChromeW)
}

// formWidth is the width of the form's pane; dashLeftWidth that of the
// latest responses.
func (v *Tab) formWidth() int     { return max(v.width*2/5, 36) }
func (v *Tab) dashLeftWidth() int { return max(v.width*2/5, 32) }

// Move moves the form cursor when the form is shown, else the cursor of
// the latest responses (up is newer). The first move puts the cursor on
// the newest row.
func (v *Tab) Move(delta int) {
	switch {
	case v.formShown():
		if !v.form.editing {
			v.form.Move(delta)
		}
	case !v.focusRight && v.live.nRecent > 0:
		newest := v.live.nRecent - 1
		if !v.live.Kept(v.pick - 1) {
			v.pick = newest + 1
			return
		}
		v.pick = min(max(v.pick-1-delta, max(v.live.nRecent-maxRecent, 0)), newest) + 1
	}
}

// Selected is the result under the latest-responses cursor.
func (v *Tab) Selected() (engine.Result, bool) {
	if v.formShown() || !v.live.Kept(v.pick-1) {
		return engine.Result{}, false
	}
	return v.live.At(v.pick - 1), true
}

// clickRow puts the cursor on the latest-responses row at line y of the
// dashboard (0 is the progress line), if there is one.
func (v *Tab) clickRow(y int) {
	lr := v.live
	// two progress lines, the pane's top border and title, the header
	i := y - 2 - 1 - 1 - 1
	if i < 0 || i >= v.tableRows() {
		return
	}
	top := v.tableTop()
	if seq := lr.nRecent - 1 - top - i; lr.Kept(seq) {
		v.pick = seq + 1
	}
}

// tableRows is how many results the latest-responses table shows.
func (v *Tab) tableRows() int {
	return max(v.height-2-widgets.PaneChromeH-1-1, 0) // progress lines, pane, header
}

// tableTop is how many of the newest results are scrolled past so that
// the cursor's row is on screen.
func (v *Tab) tableTop() int {
	if !v.live.Kept(v.pick - 1) {
		return 0
	}
	return max(v.live.nRecent-v.pick-v.tableRows()+1, 0)
}

// formShown reports whether the form (not the dashboard) is on screen.
func (v *Tab) formShown() bool { return v.showForm || v.live == nil }

// Active is whether the run is starting, going or canceling.
func (v *Tab) Active() bool {
	return v.live != nil && v.live.phase >= PhaseStarting && v.live.phase < PhaseDone
}
