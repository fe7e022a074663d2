package run

import (
	"fmt"
	"math"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/widgets"
)

// Phase is where the Run tab's run is in its life.
type Phase int

const (
	PhaseIdle      Phase = iota // no run yet: the form and the estimate
	PhaseStarting               // storing the judge and bank, building judges
	PhaseRunning                // sending (Progress.Paused tells a pause)
	PhaseCanceling              // Cancel called; finished work is being stored
	PhaseDone                   // ended: finished, canceled or stopped
	// PhaseStored shows the stored study, not a run: a reopened workspace
	// whose study has nothing left to send (Live.stored).
	PhaseStored
)

// maxRecent is how many of the latest results the live table keeps.
const maxRecent = 256

// Live is everything the Run tab shows about one run, updated from
// the engine's events: the latest progress, a ring of the latest results,
// and per attribute the Δ+ and Δ− histograms. Applying an event is O(1),
// so a fast run costs the UI little however long it goes.
type Live struct {
	phase   Phase
	prog    engine.Progress
	recent  [maxRecent]engine.Result
	nRecent int // results ever applied
	plus    map[string]*widgets.DeltaHist
	minus   map[string]*widgets.DeltaHist
	attrs   []string // attribute order of the bank
	span    float64  // score scale span, for the histograms
	// Δ needs the same run's baseline of the candidate; with several
	// workers a probe can finish before its baseline, so such results
	// wait here until it arrives (the engine's own Δ covers baselines
	// stored before the run).
	baselines map[candRun]float64
	pending   map[candRun][]engine.Result
	summary   *engine.Summary
	// rubric is the rubric of a rubric study's run (nil for a bank's):
	// its results are criteria's ratings, tallied per criterion in crits
	// in place of the Δ histograms.
	rubric *banks.Rubric
	crits  map[string]*critTally
	stored store.Progress // the study as stored (PhaseStored)
	err    error          // why the run could not start or stopped early
	events int            // events applied, for tests and the status line
}

// candRun keys a candidate's results within one run.
type candRun struct {
	context, candidate string
	run                int
}

// NewLive is the live state of a run of bank b on a score scale span
// wide.
func NewLive(b *banks.Bank, span float64) *Live {
	lr := &Live{plus: map[string]*widgets.DeltaHist{}, minus: map[string]*widgets.DeltaHist{}, span: span,
		baselines: map[candRun]float64{}, pending: map[candRun][]engine.Result{}}
	for _, a := range b.Attributes {
		lr.attrs = append(lr.attrs, a.Name)
		lr.plus[a.Name] = widgets.NewDeltaHist(span)
		lr.minus[a.Name] = widgets.NewDeltaHist(span)
	}
	return lr
}

// critTally counts one criterion's ratings of a rubric run.
type critTally struct {
	scored, missing, failed int
	sum                     float64 // of the scored ratings
}

// newPlanRun is the live state of a run of p: a bank's or a rubric's.
func newPlanRun(p *engine.Plan) *Live {
	if r := p.Spec.Rubric; p.IsRubric() && r != nil {
		return newRubricRun(r)
	}
	return NewLive(p.Spec.Bank, scoreSpan(p))
}

// newRubricRun is the live state of a rubric study's run: no attributes,
// a tally per criterion.
func newRubricRun(r *banks.Rubric) *Live {
	lr := NewLive(&banks.Bank{}, 10)
	lr.rubric, lr.crits = r, map[string]*critTally{}
	for _, c := range r.Criteria {
		lr.crits[c.Name] = &critTally{}
	}
	return lr
}

// scoreSpan is the width of the score scale of p's task (10 when the
// bank does not say, and for a rubric study).
func scoreSpan(p *engine.Plan) float64 {
	if p.Spec.Bank == nil {
		return 10
	}
	if t, ok := p.Spec.Bank.Tasks[taskOf(p.Spec)]; ok {
		return float64(t.Scale.Max - t.Scale.Min)
	}
	return 10
}

// Apply records one engine event.
func (lr *Live) Apply(ev engine.Event) {
	lr.events++
	lr.prog = ev.Progress
	if ev.Kind != engine.EventResult {
		return
	}
	lr.record(ev.Result, true)
}

// record counts a result's Δ in the histograms, and when keep puts it in
// the ring of latest results.
func (lr *Live) record(r engine.Result, keep bool) {
	push := func(r engine.Result) {
		if keep {
			lr.push(r)
		}
	}
	if lr.rubric != nil {
		lr.tally(r)
		push(r)
		return
	}
	if !r.HasScore {
		push(r)
		return
	}
	key := candRun{r.Context, r.Candidate, r.Run}
	if r.Probe == banks.ProbeBaseline {
		lr.baselines[key] = r.Score
		push(r)
		for _, p := range lr.pending[key] {
			p.Delta, p.HasDelta = p.Score-r.Score, true
			lr.addDelta(p)
		}
		delete(lr.pending, key)
		return
	}
	if !r.HasDelta {
		if b, ok := lr.baselines[key]; ok {
			r.Delta, r.HasDelta = r.Score-b, true
		}
	}
	push(r)
	if !r.HasDelta {
		lr.pending[key] = append(lr.pending[key], r)
		return
	}
	lr.addDelta(r)
}

// tally counts a rubric result in its criterion's tally: a rating, a
// missing cell (an answer without a valid rating) or a failed request.
func (lr *Live) tally(r engine.Result) {
	_, crit, ok := model.SplitRubricProbe(r.Probe)
	t := lr.crits[crit]
	if !ok || t == nil {
		return
	}
	switch {
	case r.ErrKind != "":
		t.failed++
	case r.HasScore:
		t.scored++
		t.sum += r.Score
	default:
		t.missing++
	}
}

// push puts r in the ring of latest results.
func (lr *Live) push(r engine.Result) {
	lr.recent[lr.nRecent%maxRecent] = r
	lr.nRecent++
}

// addDelta counts an attribute result's Δ in its sign's histogram.
func (lr *Live) addDelta(r engine.Result) {
	var h *widgets.DeltaHist
	switch kind, name, _ := banks.ProbeKind(r.Probe); kind {
	case "plus":
		h = lr.plus[name]
	case "minus":
		h = lr.minus[name]
	}
	if h != nil { // nil for neutral and context probes
		h.Add(r.Delta)
	}
}

// Kept reports whether the result with sequence number seq (the order of
// application, from 0) is still in the ring.
func (lr *Live) Kept(seq int) bool {
	return seq >= 0 && seq < lr.nRecent && seq >= lr.nRecent-maxRecent
}

// At is the result with sequence number seq; Kept(seq) must hold.
func (lr *Live) At(seq int) engine.Result { return lr.recent[seq%maxRecent] }

// Recent returns up to n of the latest results, newest first.
func (lr *Live) Recent(n int) []engine.Result {
	n = min(n, lr.nRecent, maxRecent)
	out := make([]engine.Result, n)
	for i := range n {
		out[i] = lr.recent[(lr.nRecent-1-i)%maxRecent]
	}
	return out
}

// deltaRange is the display range shared by every sparkline: the largest
// |Δ| seen in any histogram, at least 1.
func (lr *Live) deltaRange() float64 {
	r := 1.0
	for _, h := range lr.plus {
		r = max(r, h.AbsMax())
	}
	for _, h := range lr.minus {
		r = max(r, h.AbsMax())
	}
	return math.Ceil(r)
}

// newStoredRun is the Run tab's view of a study read from the
// workspace rather than run: its stored progress, its Δ histograms (a
// rubric study's criteria's tallies, missing cells too) filled from the
// stored scores rows, and those rows as its latest responses (the last
// maxRecent in the workspace's order), so that a study answered before
// this session (by a screen of the bank, or an earlier run) still lists
// answers whose candidates enter inspects.
func newStoredRun(lr *Live, p store.Progress, rows []model.ScoreRow) *Live {
	lr.phase, lr.stored = PhaseStored, p
	for _, row := range rows {
		var run int
		fmt.Sscan(row.Run, &run)
		r := engine.Result{Context: row.Context, Candidate: row.Candidate, Probe: row.Probe, Run: run,
			Score: row.Score, HasScore: !row.Missing}
		if lr.rubric == nil && row.Missing {
			lr.push(r) // listed, not counted: no score, no Δ
			continue
		}
		lr.record(r, true)
	}
	return lr
}
