// Package ratio is the ratio panel's rows (docs/protocol.md §8): per probe
// unit its RMS displacement over the neutral RMS with a bootstrap
// interval, as the Run tab (while a run streams) and the Bank tab (its
// signal panel) draw them. No tab owns it; it draws nothing.
package ratio

import (
	"fmt"
	"math"
	"time"

	"github.com/prism-eval/prism/calib/signal"
)

// Bootstrap sizes of the ratio intervals: a small one while a run streams
// (the panel is recomputed every Every) and docs/protocol.md §8's 2,000
// once it has ended.
const (
	LiveResamples  = 200
	FinalResamples = 2000
	Every          = 500 * time.Millisecond
)

// Row is one bar of the ratio panel: a probe unit's RMS displacement
// over the neutral RMS, with its bootstrap interval (docs/protocol.md §8).
type Row struct {
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

// View is what the ratio panel draws: per attribute and pooled, the
// ratio against the neutral clauses, and how it was computed.
type View struct {
	Rows       []Row
	Pooled     Row
	NeutralRMS float64
	NeutralN   int
	Pooling    string // signal.PoolingWordingMean or signal.PoolingPerWording
	Resamples  int
	Final      bool // computed after the run ended, with FinalResamples
	Scores     int  // score rows it was computed from
	Took       time.Duration
}

// FromReport turns calib's report into the panel's rows.
func FromReport(rep *signal.Report) *View {
	row := func(u signal.Unit) Row {
		return Row{Name: u.Name, N: u.N, Ratio: u.Ratio, Lo: u.CI[0], Hi: u.CI[1], Pass: u.Pass, RMS: u.RMS,
			HasSignal: u.N > 0 && !math.IsNaN(u.Ratio), TooFew: u.TooFew, Contexts: min(u.Contexts, rep.Neutral.Contexts)}
	}
	v := &View{Pooled: row(rep.Pooled), NeutralRMS: rep.Neutral.RMS, NeutralN: rep.Neutral.N, Pooling: rep.Pooling}
	for _, u := range rep.Units {
		v.Rows = append(v.Rows, row(u))
	}
	return v
}

// Note is the panels' footnote: how displacements were pooled and the
// fewest contexts for a verdict.
func (v *View) Note() string {
	return fmt.Sprintf("%s · verdicts from %d contexts", v.PoolingText(), signal.MinContexts)
}

// PoolingText says how displacements were pooled.
func (v *View) PoolingText() string {
	if v.Pooling == signal.PoolingPerWording {
		return "each wording separately"
	}
	return "wordings averaged"
}

// VerdictRule is the screen's rule in words (calib/signal: Unit.Pass,
// MinContexts): when a unit passes, and why a screen of more contexts
// can still leave a unit without a verdict.
func VerdictRule() string {
	return fmt.Sprintf("pass: the ratio's 2.5%% bound > 1 · a verdict needs ≥ %d contexts with answers to the unit and to neutral", signal.MinContexts)
}

// TooFewText says why a row has no verdict, in at most w cells:
// "too few (3 contexts)", or "too few" when that does not fit.
func (r Row) TooFewText(w int) string {
	if s := fmt.Sprintf("too few (%d contexts)", r.Contexts); len(s) <= w {
		return s
	}
	return "too few"
}
