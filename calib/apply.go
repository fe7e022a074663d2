package calib

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/prism-eval/prism/model"
)

// ApplyOptions configure Calibrator.Apply.
type ApplyOptions struct {
	ScoresFile, LabelsFile string // names used in errors ("scores", "labels" when empty)
	// SkipIncomplete leaves out, with a warning, the candidates Apply
	// would refuse (no baseline score, no probe score) and then the
	// contexts left with one candidate in within-context mode: for a view
	// of a study still being acquired. prism score refuses them instead.
	SkipIncomplete bool
	// HumanScale maps every corrected score to the human scale with the
	// calibrator's monotone map (an error when it has none).
	HumanScale bool
	// Bootstrap and Seed drive the transfer check's intervals; Bootstrap 0
	// takes the calibrator's (its fit's resamples and seed).
	Bootstrap int
	Seed      uint64
	// Comparisons, when not nil, are pairwise human labels: a pairwise
	// calibrator's transfer check counts them (docs/protocol.md §6), as
	// Fit does, instead of the pairs of unequal labels.
	Comparisons []model.Comparison
}

// Scored is the result of applying a calibrator to new candidates.
type Scored struct {
	Method    string
	Centering string
	// Units names the contribution terms of each row: the attributes, then
	// (prism, alpha_prism) the context probes "ctx:NAME".
	Units      []string
	Rows       []ScoredRow // by context, then candidate (byte order)
	Contexts   int
	Candidates int
	// Imputed counts, per score column, the cells filled with the
	// calibrator's training mean; ImputedCandidates the candidates with
	// at least one.
	Imputed           map[string]int
	ImputedCandidates int
	// IgnoredRows counts score rows of probes the calibrator does not
	// read (other attributes, neutral clauses).
	IgnoredRows int
	// Skipped counts what ApplyOptions.SkipIncomplete left out:
	// candidates and single-candidate contexts.
	Skipped int
	// InSample counts scored candidates that were training candidates of
	// the calibrator (same context and candidate ids).
	InSample int
	// HumanScale is set when Scaled holds the human-scale map's values;
	// Extrapolated counts those outside the training range of the map.
	HumanScale   bool
	Extrapolated int
	// Labelled counts candidates with a human label; Transfer is the
	// agreement check when at least one context can be scored.
	Labelled int
	Transfer *Transfer
	Warnings []string
}

// ScoredRow is one candidate's corrected score:
//
//	Corrected = α·Baseline − Σ Terms
//
// (up to rounding: the prediction itself sums column by column).
type ScoredRow struct {
	Context, Candidate string
	Baseline           float64   // s0 (the training mean when it was missing)
	Corrected          float64   // ŷ
	Scaled             float64   // ŷ on the human scale (NaN unless HumanScale)
	Human              float64   // the human label (NaN when unlabelled)
	RankBefore         float64   // rank of Baseline within the context: 1 = highest, ties share the mean rank
	RankAfter          float64   // rank of Corrected, the same way
	Terms              []float64 // per Units: the amount the unit's probes subtract
	Imputed            int       // score cells of this candidate filled with a training mean
	InSample           bool      // a training candidate of the calibrator
}

// Transfer is the agreement with humans of the baseline and of the
// corrected scores on scored data that has labels: the calibrator's
// metric per context (global mode: pooled over all labelled candidates),
// context-bootstrap intervals and the paired difference.
type Transfer struct {
	Metric     string   `json:"metric"`
	Contexts   int      `json:"contexts"`   // contexts the metric is defined on
	Candidates int      `json:"candidates"` // labelled candidates in them
	Bootstrap  int      `json:"bootstrap"`
	Seed       uint64   `json:"seed"`
	Baseline   Estimate `json:"baseline"`
	Corrected  Estimate `json:"corrected"`
	Diff       Estimate `json:"diff"` // corrected − baseline, paired
	// InSample counts the labelled candidates that were training
	// candidates: when it is not 0 the corrected agreement is (partly)
	// in-sample and overstates transfer.
	InSample int `json:"in_sample"`
}

// Apply scores candidates with the calibrator: it averages each
// candidate's scores per condition (runs and wordings), fills a missing
// cell with the training mean, centers J, O and H within each context
// (global mode: with the training means) and evaluates the calibrator's
// formula (docs/calibrator.md). labels may be nil; with labels it adds the
// transfer check.
//
// Errors name the file, line and field: a probe name that does not parse,
// a candidate without a baseline score or without any probe score, a
// context with one candidate in within-context mode (its centered
// responses are all zero), duplicate labels.
func (c *Calibrator) Apply(rows []model.ScoreRow, labels []model.Label, opts ApplyOptions) (*Scored, error) {
	a, err := c.NewApplier(opts)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		if err := a.Add(&rows[i]); err != nil {
			return nil, err
		}
	}
	return a.Finish(labels)
}

// Applier is Apply a row at a time: Add folds each score row into its
// candidate's per-column sums as it is read, and Finish does the rest,
// so a caller that streams its rows (prism score from a CSV file or a
// workspace) never holds them. Apply(rows) is NewApplier, Add of each
// row in order, then Finish: the result is the same, bit for bit.
type Applier struct {
	c        *Calibrator
	opts     ApplyOptions
	sf, lf   string
	nc       int
	colOf    map[string]int // score column → index
	probeCol map[string]int // probe name → score column, −1: not read
	condCol  []condColumn   // AddCandidate's, by condition number
	out      *Scored
	// Candidates in first-seen order, with per-column sums. The sums
	// live in chunks of shared arrays: one allocation per 1,024
	// candidates, not two per candidate.
	sumPool []float64
	cntPool []int32
	cands   []*applyCand
	index   map[candKey]*applyCand
	last    *applyCand
}

type applyCand struct {
	ctx, id string
	line    int // first score row
	sum     []float64
	cnt     []int32
	// Its label (readLabels): human when labelled, from labelLine.
	human     float64
	labelled  bool
	labelLine int
}

// NewApplier starts an Apply of the calibrator with opts.
func (c *Calibrator) NewApplier(opts ApplyOptions) (*Applier, error) {
	a := &Applier{c: c, opts: opts, sf: opts.ScoresFile, lf: opts.LabelsFile, nc: len(c.ScoreColumns),
		probeCol: map[string]int{}, index: map[candKey]*applyCand{}}
	if a.sf == "" {
		a.sf = "scores"
	}
	if a.lf == "" {
		a.lf = "labels"
	}
	if opts.HumanScale && c.HumanScale == nil {
		return nil, fmt.Errorf("%w in the calibrator (%s)", ErrNoHumanScale, c.HumanScaleNote)
	}
	a.colOf = make(map[string]int, a.nc)
	for i, col := range c.ScoreColumns {
		a.colOf[col] = i
	}
	a.out = &Scored{Method: c.Method, Centering: c.Centering, Imputed: map[string]int{}, HumanScale: opts.HumanScale}
	a.out.Units = slices.Clone(c.Attributes)
	if m, _ := MethodOf(c.Method); m == PRISM || m == AlphaPRISM {
		a.out.Units = append(a.out.Units, c.Columns[2*len(c.Attributes):]...)
	}
	return a, nil
}

// Add folds one score row. Its errors name the row's line: a probe name
// that does not parse, an empty id, a score that is not a finite number.
func (a *Applier) Add(r *model.ScoreRow) error {
	col, err := a.column(r)
	if err != nil {
		return err
	}
	return a.fold(r, col)
}

// Reserve makes room for n candidates to come, when none has come yet:
// their index is made to size (inserting 16,000 candidates into a map
// grown as they come takes twice the time).
func (a *Applier) Reserve(n int) {
	if len(a.index) == 0 && n > 0 {
		a.index = make(map[candKey]*applyCand, n)
		a.cands = slices.Grow(a.cands, n)
	}
}

// AddCandidate folds one candidate's rows as Add folds each of them in
// turn, bit for bit, with Add's errors (without a line: the rows come
// from a workspace, store.ScanCandidates). A probe's column is looked up
// once a condition number and the candidate once, not once a row.
func (a *Applier) AddCandidate(c *model.CandidateScores) error {
	var cand *applyCand
	for i, k := range c.Cond {
		probe := c.Conds[k].Probe
		if int(k) >= len(a.condCol) {
			a.condCol = append(a.condCol, make([]condColumn, int(k)+1-len(a.condCol))...)
		}
		m := &a.condCol[k]
		if !m.known || m.probe != probe {
			r := c.Row(i)
			col, err := a.column(&r)
			if err != nil {
				return err
			}
			*m = condColumn{probe: probe, col: col, known: true}
		}
		if c.Context == "" || c.Candidate == "" {
			return fmt.Errorf("%s: field \"context\"/\"candidate\": empty id", at(a.sf, 0))
		}
		x := c.Score[i]
		missing := math.IsNaN(x)
		if !missing {
			if err := model.CheckNumber(x); err != nil {
				return fmt.Errorf("%s: field \"score\": %v", at(a.sf, 0), err)
			}
		}
		if cand == nil {
			cand = a.candidate(c.Context, c.Candidate, 0)
		}
		switch {
		case m.col < 0:
			a.out.IgnoredRows++
		case !missing:
			cand.sum[m.col] += x
			cand.cnt[m.col]++
		}
	}
	return nil
}

// condColumn is AddCandidate's memo of a condition number's probe and
// column.
type condColumn struct {
	probe string
	col   int
	known bool
}

// column is the score column r's probe fills, −1 when the calibrator
// reads none; an error when the probe name does not parse.
func (a *Applier) column(r *model.ScoreRow) (int, error) {
	col, seen := a.probeCol[r.Probe]
	if !seen {
		if _, _, _, err := model.ParseProbe(r.Probe); err != nil {
			return 0, fmt.Errorf("%s: field \"probe\": %v", at(a.sf, r.Line), err)
		}
		col = -1
		if k, ok := a.colOf[r.Probe]; ok {
			col = k
		}
		a.probeCol[r.Probe] = col
	}
	return col, nil
}

// fold adds r to its candidate's sums of column col (−1: none).
func (a *Applier) fold(r *model.ScoreRow, col int) error {
	if r.Context == "" || r.Candidate == "" {
		return fmt.Errorf("%s: field \"context\"/\"candidate\": empty id", at(a.sf, r.Line))
	}
	if !r.Missing {
		if err := model.CheckNumber(r.Score); err != nil {
			return fmt.Errorf("%s: field \"score\": %v", at(a.sf, r.Line), err)
		}
	}
	if last := a.last; last == nil || last.ctx != r.Context || last.id != r.Candidate {
		a.last = a.candidate(r.Context, r.Candidate, r.Line)
	}
	last := a.last
	if col < 0 {
		a.out.IgnoredRows++
		return nil
	}
	if !r.Missing {
		last.sum[col] += r.Score
		last.cnt[col]++
	}
	return nil
}

// candidate returns the sums of candidate id of context ctx, made (first
// seen on line) when it has none.
func (a *Applier) candidate(ctx, id string, line int) *applyCand {
	k := candKey{ctx, id}
	c := a.index[k]
	if c == nil {
		const chunk = 1024
		nc := a.nc
		if len(a.sumPool) < nc {
			a.sumPool, a.cntPool = make([]float64, nc*chunk), make([]int32, nc*chunk)
		}
		c = &applyCand{ctx: ctx, id: id, line: line, sum: a.sumPool[:nc:nc], cnt: a.cntPool[:nc:nc]}
		a.sumPool, a.cntPool = a.sumPool[nc:], a.cntPool[nc:]
		a.index[k] = c
		a.cands = append(a.cands, c)
	}
	return c
}

func hasHave(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

// rule is the calibrator's prediction rule.
func (c *Calibrator) rule() *rule {
	m, _ := MethodOf(c.Method)
	r := newRule(len(c.Columns), len(c.Attributes))
	r.method, r.alpha = m, c.Alpha
	switch m {
	case PRISM, AlphaPRISM:
		copy(r.beta, c.Beta)
	default:
		copy(r.delta, c.Delta)
		for k, d := range c.Delta {
			r.curv[k] = d * d / 2
		}
	}
	return r
}

// inTraining reports whether (ctx, cand) was a training candidate.
func (c *Calibrator) inTraining(ctx, cand string) bool {
	ids, ok := c.Training.IDs[ctx]
	if !ok {
		return false
	}
	_, found := slices.BinarySearch(ids, cand)
	return found
}

// transfer computes the agreement check over the labelled candidates: per
// context (those with two or more labelled candidates, and for pairwise
// an unequal-human pair) in byte order, exactly as Fit computes Vanilla,
// or pooled in global mode.
func (c *Calibrator) transfer(s *Scored, off []int, opts ApplyOptions) (*Transfer, string) {
	B, seed := opts.Bootstrap, opts.Seed
	if B == 0 {
		B, seed = c.CV.Bootstrap, c.CV.Seed
	}
	if B < 1 {
		B = 2000
	}
	t := &Transfer{Metric: c.Metric, Bootstrap: B, Seed: seed}
	if c.Centering == CenterGlobal {
		var base, corr, hum []float64
		for _, r := range s.Rows {
			if !math.IsNaN(r.Human) {
				base, corr, hum = append(base, r.Baseline), append(corr, r.Corrected), append(hum, r.Human)
				if r.InSample {
					t.InSample++
				}
			}
		}
		if len(hum) < 2 {
			return nil, "transfer check: fewer than two labelled candidates"
		}
		means, ci, diff := PooledBootstrap([][]float64{base, corr}, hum, 0, B, seed)
		t.Metric = model.MetricSpearman
		t.Contexts, t.Candidates = 1, len(hum)
		t.Baseline = Estimate{means[0], ci[0]}
		t.Corrected = Estimate{means[1], ci[1]}
		t.Diff = Estimate{means[1] - means[0], diff[1]}
		return t, ""
	}
	pairwise := c.Metric == model.MetricPairwise
	var byCtx map[string][]model.Comparison // comparison labels by context
	if pairwise && opts.Comparisons != nil {
		byCtx = map[string][]model.Comparison{}
		for _, cm := range opts.Comparisons {
			byCtx[cm.Context] = append(byCtx[cm.Context], cm)
		}
	}
	var vals [2][]float64
	var base, corr, hum, rb, rc, rh []float64
	var idx []int
	for g := 0; g+1 < len(off); g++ {
		base, corr, hum = base[:0], corr[:0], hum[:0]
		inSample := 0
		for _, r := range s.Rows[off[g]:off[g+1]] {
			if !math.IsNaN(r.Human) {
				base, corr, hum = append(base, r.Baseline), append(corr, r.Corrected), append(hum, r.Human)
				if r.InSample {
					inSample++
				}
			}
		}
		n := len(hum)
		if n < 2 {
			continue
		}
		var vb, vc float64
		if pairwise && byCtx != nil {
			var ok bool
			if vb, vc, ok = comparisonTransfer(s.Rows[off[g]:off[g+1]], byCtx[s.Rows[off[g]].Context]); !ok {
				continue
			}
		} else if pairwise {
			var ok bool
			if vb, ok = PairwiseAccuracy(base, hum); !ok {
				continue
			}
			vc, _ = PairwiseAccuracy(corr, hum)
		} else {
			if cap(rb) < n {
				rb, rc, rh, idx = make([]float64, n), make([]float64, n), make([]float64, n), make([]int, n)
			}
			MidRanks(rh[:n], hum, idx[:n])
			MidRanks(rb[:n], base, idx[:n])
			MidRanks(rc[:n], corr, idx[:n])
			vb, vc = pearsonOfRanks(rb[:n], rh[:n]), pearsonOfRanks(rc[:n], rh[:n])
		}
		vals[0] = append(vals[0], vb)
		vals[1] = append(vals[1], vc)
		t.Contexts++
		t.Candidates += n
		t.InSample += inSample
	}
	if t.Contexts == 0 {
		if byCtx != nil {
			return nil, "transfer check: no context has a comparison of two labelled candidates"
		}
		if pairwise {
			return nil, "transfer check: no context has two labelled candidates with unequal human scores"
		}
		return nil, "transfer check: no context has two labelled candidates"
	}
	ci, diff := PairedBootstrap(vals[:], 0, B, seed)
	mb, mc := mean(vals[0]), mean(vals[1])
	t.Baseline = Estimate{mb, ci[0]}
	t.Corrected = Estimate{mc, ci[1]}
	t.Diff = Estimate{mc - mb, diff[1]}
	return t, ""
}

// ErrNoHumanScale is returned by Apply when HumanScale is asked of a
// calibrator without a map.
var ErrNoHumanScale = errors.New("no human-scale map")

// comparisonTransfer is the transfer check's pairwise metric of one
// context from comparison labels: the share of cs, among those of two
// labelled candidates of rows, that the baseline (vb) and the corrected
// scores (vc) order as the humans did; ok is false when none is of two
// labelled candidates. Rows are the context's, in candidate byte order.
func comparisonTransfer(rows []ScoredRow, cs []model.Comparison) (vb, vc float64, ok bool) {
	var base, corr []float64
	var pairs []Pair
	at := map[string]int32{}
	for _, r := range rows {
		if !math.IsNaN(r.Human) {
			at[r.Candidate] = int32(len(base))
			base, corr = append(base, r.Baseline), append(corr, r.Corrected)
		}
	}
	for _, cm := range cs {
		w, okw := at[cm.Winner]
		l, okl := at[cm.Loser]
		if okw && okl && w != l {
			pairs = append(pairs, Pair{w, l})
		}
	}
	if vb, ok = ComparisonAccuracy(base, pairs); !ok {
		return 0, 0, false
	}
	vc, _ = ComparisonAccuracy(corr, pairs)
	return vb, vc, true
}
