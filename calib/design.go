package calib

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/prism-eval/prism/model"
)

// Design is the data of one fit after docs/protocol.md §2–3: the labelled candidates
// grouped by context, the imputed baseline, the surrogate Jacobian centered
// within each context and the norm-matched target. Rows are candidates,
// context by context; context g holds rows Off[g] to Off[g+1].
type Design struct {
	Contexts     []string       // kept contexts, in byte order
	Candidates   [][]string     // per context, candidate ids in byte order
	Attrs        []string       // attributes, sorted by name
	CtxProbes    []string       // context probe names (without "ctx:"), sorted
	Columns      []string       // the q columns of J: ATTR:+, ATTR:- per attribute, then ctx:NAME
	ScoreColumns []string       // the imputed score columns: baseline, then Columns
	Imputed      map[string]int // per score column, cells filled with the column mean
	Means        []float64      // per score column, its mean over the design's rows (what filled the missing cells)

	Off   []int     // row offsets, len(Contexts)+1
	S0    []float64 // baseline score s0 per row, after imputation
	Human []float64 // human reference y per row
	V     []float64 // centered baseline v = C s0
	J     []float64 // Jacobian J before centering, row-major rows × q
	JC    []float64 // centered Jacobian J̃ = C J, row-major rows × q
	YStar []float64 // norm-matched target y* (eq. 4)
}

// Q is the number of Jacobian columns.
func (d *Design) Q() int { return len(d.Columns) }

// Rows is the number of candidates in the design.
func (d *Design) Rows() int { return len(d.S0) }

// BuildOptions name the sources for error messages.
type BuildOptions struct {
	ScoresFile string // name used in errors about score rows ("scores" when empty)
	LabelsFile string // name used in errors about labels ("labels" when empty)
	Global     bool   // keep contexts with a single candidate (global mode groups all rows)
	// MeanOver, when not nil, restricts the column means that fill missing
	// cells to the candidates of the contexts it accepts (the exploration
	// contexts of docs/protocol.md §13); nil: every candidate of the design.
	MeanOver func(context string) bool
}

type candKey struct{ ctx, cand string }

// at formats a file:line prefix; line 0 (in-memory rows) leaves it out.
func at(file string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

// BuildDesign turns judge scores and human labels into a Design (docs/protocol.md
// §2–3). Scores with the same context, candidate and probe are averaged
// (wordings and repeats within a sign; empty scores do not count); neutral
// probes are controls and ignored here. A score column's missing cell
// (empty scores only, or no row) is filled with that column's mean over all
// candidates of the design before any differencing or centering; the
// columns are the per-probe scores s0, s(pk+), s(pk−), s(pc).
//
// Scores of unlabelled candidates are ignored and contexts with fewer than
// two labelled candidates skipped, each with a warning. Errors name the
// file, line and field.
func BuildDesign(rows []model.ScoreRow, labels []model.Label, opts BuildOptions) (*Design, []string, error) {
	sf, lf := opts.ScoresFile, opts.LabelsFile
	if sf == "" {
		sf = "scores"
	}
	if lf == "" {
		lf = "labels"
	}
	var warnings []string

	// Probe names: attributes need both signs, and a baseline must exist.
	type signLines struct{ plus, minus int }
	attrSeen := map[string]*signLines{}
	ctxSeen := map[string]bool{}
	baseline := false
	// Each distinct probe name is parsed once; rows keep its index.
	type probeInfo struct {
		name, kind, attr, sign string
		line                   int // first row with this probe
	}
	var probes []probeInfo
	probeOf := map[string]int32{}
	rowProbe := make([]int32, len(rows))
	for i := range rows {
		r := &rows[i]
		pi, seen := probeOf[r.Probe]
		if !seen {
			kind, attr, sign, err := model.ParseProbe(r.Probe)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: field \"probe\": %v", at(sf, r.Line), err)
			}
			pi = int32(len(probes))
			probes = append(probes, probeInfo{r.Probe, kind, attr, sign, r.Line})
			probeOf[r.Probe] = pi
		}
		rowProbe[i] = pi
		if err := model.CheckNumber(r.Score); !r.Missing && err != nil {
			return nil, nil, fmt.Errorf("%s: field \"score\": %v", at(sf, r.Line), err)
		}
	}
	for _, p := range probes {
		switch p.kind {
		case model.ProbeBaseline:
			baseline = true
		case model.ProbeContext:
			ctxSeen[p.attr] = true
		case model.ProbeAttr:
			s := attrSeen[p.attr]
			if s == nil {
				s = &signLines{-1, -1}
				attrSeen[p.attr] = s
			}
			if p.sign == "+" {
				s.plus = p.line
			} else {
				s.minus = p.line
			}
		}
	}
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("%s: no score rows", sf)
	}
	if !baseline {
		return nil, nil, fmt.Errorf("%s: field \"probe\": no \"baseline\" rows; s0 is needed for every candidate", sf)
	}
	d := &Design{Imputed: map[string]int{}}
	for _, a := range slices.Sorted(maps.Keys(attrSeen)) { // sorted: the first offender is reported
		s := attrSeen[a]
		if s.plus < 0 {
			return nil, nil, fmt.Errorf("%s: field \"probe\": attribute %q has %s rows but no %s rows (both signs are needed)", at(sf, s.minus), a, a+":-", a+":+")
		}
		if s.minus < 0 {
			return nil, nil, fmt.Errorf("%s: field \"probe\": attribute %q has %s rows but no %s rows (both signs are needed)", at(sf, s.plus), a, a+":+", a+":-")
		}
		d.Attrs = append(d.Attrs, a)
	}
	for c := range ctxSeen {
		d.CtxProbes = append(d.CtxProbes, c)
	}
	slices.Sort(d.Attrs)
	slices.Sort(d.CtxProbes)
	for _, a := range d.Attrs {
		d.Columns = append(d.Columns, a+":+", a+":-")
	}
	for _, c := range d.CtxProbes {
		d.Columns = append(d.Columns, "ctx:"+c)
	}
	if len(d.Columns) == 0 {
		return nil, nil, fmt.Errorf("%s: field \"probe\": no attribute (ATTR:+/ATTR:-) or context (ctx:NAME) probes, nothing to fit", sf)
	}
	d.ScoreColumns = append([]string{"baseline"}, d.Columns...)
	colOf := make(map[string]int, len(d.ScoreColumns))
	for i, c := range d.ScoreColumns {
		colOf[c] = i
	}
	nc := len(d.ScoreColumns)

	// Labels, keyed by (context, candidate).
	labelOf := make(map[candKey]int, len(labels))
	for i, l := range labels {
		if l.Context == "" || l.Candidate == "" {
			return nil, nil, fmt.Errorf("%s: field \"context\"/\"candidate\": empty id", at(lf, l.Line))
		}
		if err := model.CheckNumber(l.Human); err != nil {
			return nil, nil, fmt.Errorf("%s: field \"human\": %v", at(lf, l.Line), err)
		}
		k := candKey{l.Context, l.Candidate}
		if j, dup := labelOf[k]; dup {
			return nil, nil, fmt.Errorf("%s: field \"candidate\": duplicate label for context %q candidate %q (first on line %d)", at(lf, l.Line), l.Context, l.Candidate, labels[j].Line)
		}
		labelOf[k] = i
	}

	// Average scores per labelled candidate and score column.
	sum := make([]float64, len(labels)*nc)
	cnt := make([]int32, len(labels)*nc)
	unlabelledRows := 0
	unlabelled := map[candKey]bool{}
	colOfProbe := make([]int, len(probes)) // −1: neutral, not a column
	for i, p := range probes {
		c, ok := colOf[p.name]
		if !ok {
			c = -1
		}
		colOfProbe[i] = c
	}
	last, lastIdx, lastOK := candKey{}, 0, false
	for i := range rows {
		r := &rows[i]
		// Rows usually come candidate by candidate: reuse the last lookup.
		if probes[rowProbe[i]].kind == model.ProbeRubric {
			continue // rubric ratings are no probe: not even counted (docs/rubrics.md)
		}
		if i == 0 || r.Context != last.ctx || r.Candidate != last.cand {
			last = candKey{r.Context, r.Candidate}
			lastIdx, lastOK = labelOf[last]
		}
		li := lastIdx
		if !lastOK {
			unlabelledRows++
			unlabelled[last] = true
			continue
		}
		c := colOfProbe[rowProbe[i]]
		if c < 0 || r.Missing { // neutral probes are controls, not columns
			continue
		}
		sum[li*nc+c] += r.Score
		cnt[li*nc+c]++
	}
	if unlabelledRows > 0 {
		warnings = append(warnings, fmt.Sprintf("%s: ignored %d score rows of %d candidates without a label in %s", sf, unlabelledRows, len(unlabelled), lf))
	}
	for i, l := range labels {
		any := false
		for c := 0; c < nc; c++ {
			any = any || cnt[i*nc+c] > 0
		}
		if !any {
			return nil, nil, fmt.Errorf("%s: field \"candidate\": labelled candidate %q of context %q has no scores in %s", at(lf, l.Line), l.Candidate, l.Context, sf)
		}
	}

	// Group labels by context; skip contexts with fewer than two candidates.
	byCtx := map[string][]int{}
	for i, l := range labels {
		byCtx[l.Context] = append(byCtx[l.Context], i)
	}
	var ctxs, skipped []string
	for c, ls := range byCtx {
		if len(ls) < 2 && !opts.Global {
			skipped = append(skipped, c)
			continue
		}
		ctxs = append(ctxs, c)
	}
	slices.Sort(ctxs)
	slices.Sort(skipped)
	if len(skipped) > 0 {
		show := skipped
		if len(show) > 5 {
			show = show[:5]
		}
		more := ""
		if len(skipped) > len(show) {
			more = ", …"
		}
		warnings = append(warnings, fmt.Sprintf("%s: skipped %d contexts with fewer than two labelled candidates (%s%s)", lf, len(skipped), strings.Join(show, ", "), more))
	}
	d.Contexts = ctxs
	d.Off = make([]int, 1, len(ctxs)+1)
	var order []int // label index per design row
	for _, c := range ctxs {
		ls := byCtx[c]
		slices.SortFunc(ls, func(a, b int) int { return strings.Compare(labels[a].Candidate, labels[b].Candidate) })
		ids := make([]string, len(ls))
		for k, li := range ls {
			ids[k] = labels[li].Candidate
		}
		d.Candidates = append(d.Candidates, ids)
		order = append(order, ls...)
		d.Off = append(d.Off, len(order))
	}
	n := len(order)

	// Score matrix with column-mean imputation over the design's rows.
	score := make([]float64, n*nc)
	for c := 0; c < nc; c++ {
		var s float64
		m, present := 0, 0
		for _, li := range order {
			if k := cnt[li*nc+c]; k > 0 {
				present++
				if opts.MeanOver != nil && !opts.MeanOver(labels[li].Context) {
					continue
				}
				s += sum[li*nc+c] / float64(k)
				m++
			}
		}
		if m == 0 && n > 0 {
			of := ""
			if opts.MeanOver != nil {
				of = " of the contexts its mean is taken over (exploration)"
			}
			return nil, nil, fmt.Errorf("%s: field \"score\": column %q has no score for any labelled candidate%s", sf, d.ScoreColumns[c], of)
		}
		mean := s / float64(max(m, 1))
		d.Means = append(d.Means, mean)
		d.Imputed[d.ScoreColumns[c]] = n - present
		for r, li := range order {
			if k := cnt[li*nc+c]; k > 0 {
				score[r*nc+c] = sum[li*nc+c] / float64(k)
			} else {
				score[r*nc+c] = mean
			}
		}
	}

	// J (eq. 1), then centering and the target per context (§3).
	q := d.Q()
	K := len(d.Attrs)
	d.S0 = make([]float64, n)
	d.Human = make([]float64, n)
	d.V = make([]float64, n)
	d.YStar = make([]float64, n)
	d.JC = make([]float64, n*q)
	for r, li := range order {
		row := score[r*nc : (r+1)*nc]
		s0 := row[0]
		d.S0[r] = s0
		d.Human[r] = labels[li].Human
		j := d.JC[r*q : (r+1)*q]
		for k := 0; k < K; k++ {
			j[2*k] = row[1+2*k] - s0   // Δk+ = s(pk+) − s0
			j[2*k+1] = s0 - row[2+2*k] // Δk− = s0 − s(pk−)
		}
		for c := 2 * K; c < q; c++ {
			j[c] = row[1+c] - s0
		}
	}
	d.J = slices.Clone(d.JC)
	for g := range ctxs {
		d.centerContext(d.Off[g], d.Off[g+1])
	}
	return d, warnings, nil
}

// centerContext centers s0 and J over rows [lo, hi) and sets the target
// y* = (‖C s0‖ / ‖C y‖) · C y, or 0 when the human scores are constant.
func (d *Design) centerContext(lo, hi int) {
	q := d.Q()
	n := float64(hi - lo)
	var ms, my float64
	for r := lo; r < hi; r++ {
		ms += d.S0[r]
		my += d.Human[r]
	}
	ms /= n
	my /= n
	var vv, yy float64
	for r := lo; r < hi; r++ {
		d.V[r] = d.S0[r] - ms
		d.YStar[r] = d.Human[r] - my
		vv += d.V[r] * d.V[r]
		yy += d.YStar[r] * d.YStar[r]
	}
	scale := 0.0
	if yy > 0 {
		scale = math.Sqrt(vv) / math.Sqrt(yy)
	}
	for r := lo; r < hi; r++ {
		d.YStar[r] *= scale
	}
	for c := 0; c < q; c++ {
		var m float64
		for r := lo; r < hi; r++ {
			m += d.JC[r*q+c]
		}
		m /= n
		for r := lo; r < hi; r++ {
			d.JC[r*q+c] -= m
		}
	}
}

// centerOH stores the half-differences and second differences of
// docs/protocol.md §2 of rows [lo, hi), centered over those rows (§3), in
// oc and hc ((hi−lo) × K, row-major):
//
//	Õ = C O,  O_k = (Δk+ + Δk−)/2        H̃ = C H,  H_k = Δk+ − Δk−
//
// from the uncentered J, each column centered by subtracting its own mean
// over the rows (Õ_ik = O_ik − mean O_k), never as ½(J̃k+ + J̃k−): that
// can differ in the last bit between rows with equal O, and a prediction
// must be a function of its row. The rows are one context, or all rows in
// global mode.
func (d *Design) centerOH(lo, hi int, oc, hc []float64) {
	q, K := d.Q(), len(d.Attrs)
	for r := lo; r < hi; r++ {
		j, i := d.J[r*q:], (r-lo)*K
		for k := 0; k < K; k++ {
			oc[i+k] = (j[2*k] + j[2*k+1]) / 2
			hc[i+k] = j[2*k] - j[2*k+1]
		}
	}
	n := hi - lo
	for k := 0; k < K; k++ {
		var so, sh float64
		for i := 0; i < n; i++ {
			so += oc[i*K+k]
			sh += hc[i*K+k]
		}
		mo, mh := so/float64(n), sh/float64(n)
		for i := 0; i < n; i++ {
			oc[i*K+k] -= mo
			hc[i*K+k] -= mh
		}
	}
}
