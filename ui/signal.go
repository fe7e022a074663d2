package ui

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/prism-eval/prism/calib/signal"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/model/store"
)

// Bootstrap sizes of the ratio intervals: a small one while a run streams
// (the panel is recomputed every signalEvery) and docs/protocol.md §8's 2,000
// once it has ended.
const (
	liveResamples  = 200
	finalResamples = 2000
	signalEvery    = 500 * time.Millisecond
)

// ratioRow is one bar of the ratio panel: a probe unit's RMS displacement
// over the neutral RMS, with its bootstrap interval (docs/protocol.md §8).
type ratioRow struct {
	Name      string
	N         int
	Ratio     float64
	Lo, Hi    float64
	Pass      bool // the interval's lower end exceeds 1, with enough contexts
	RMS       float64
	HasSignal bool // false until the unit has displacements
	// TooFew: fewer than signal.MinContexts contexts behind the unit
	// or the neutral reference, so no verdict and no interval is shown;
	// Contexts is the smaller of the two counts.
	TooFew   bool
	Contexts int
}

// signalView is what the ratio panel draws: per attribute and pooled, the
// ratio against the neutral clauses, and how it was computed.
type signalView struct {
	Rows       []ratioRow
	Pooled     ratioRow
	NeutralRMS float64
	NeutralN   int
	Pooling    string // signal.PoolingWordingMean or signal.PoolingPerWording
	Resamples  int
	Final      bool // computed after the run ended, with finalResamples
	Scores     int  // score rows it was computed from
	Took       time.Duration
}

// signalMsg carries a recomputed ratio panel (or why it failed).
type signalMsg struct {
	view *signalView
	err  error
}

// signalCmd reads the scores stored so far for the run's dataset, judge
// and bank version and computes docs/protocol.md §8's ratios from them, off the UI
// goroutine. It works on partial data: units with no displacements yet
// come back without a ratio.
func signalCmd(ctx context.Context, st *store.Store, dataset, judgeName, bankHash string, resamples int, final bool) tea.Cmd {
	return func() tea.Msg {
		start := time.Now()
		rows, err := st.Scores(ctx, dataset, judgeName, bankHash)
		if err != nil {
			return signalMsg{err: fmt.Errorf("reading scores: %w", err)}
		}
		rep, err := signal.Signal(ctx, rows, signal.Options{Bootstrap: resamples, Seed: 42})
		if err != nil {
			return signalMsg{err: err}
		}
		v := signalFromReport(rep)
		v.Resamples, v.Final, v.Scores, v.Took = resamples, final, len(rows), time.Since(start)
		return signalMsg{view: v}
	}
}

// signalFromReport turns calib's report into the panel's rows.
func signalFromReport(rep *signal.Report) *signalView {
	row := func(u signal.Unit) ratioRow {
		return ratioRow{Name: u.Name, N: u.N, Ratio: u.Ratio, Lo: u.CI[0], Hi: u.CI[1], Pass: u.Pass, RMS: u.RMS,
			HasSignal: u.N > 0 && !math.IsNaN(u.Ratio), TooFew: u.TooFew, Contexts: min(u.Contexts, rep.Neutral.Contexts)}
	}
	v := &signalView{Pooled: row(rep.Pooled), NeutralRMS: rep.Neutral.RMS, NeutralN: rep.Neutral.N, Pooling: rep.Pooling}
	for _, u := range rep.Units {
		v.Rows = append(v.Rows, row(u))
	}
	return v
}

// signalNote is the panels' footnote: how displacements were pooled and
// the fewest contexts for a verdict.
func (v *signalView) signalNote() string {
	how := "wordings averaged"
	if v.Pooling == signal.PoolingPerWording {
		how = "each wording separately"
	}
	return fmt.Sprintf("%s · verdicts from %d contexts", how, signal.MinContexts)
}

// tooFewText says why a row has no verdict, in at most w cells:
// "too few (3 contexts)", or "too few" when that does not fit.
func (r ratioRow) tooFewText(w int) string {
	if s := fmt.Sprintf("too few (%d contexts)", r.Contexts); len(s) <= w {
		return s
	}
	return "too few"
}
