package calib

import (
	"errors"
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
	// JC is the centered Jacobian J̃ = C J, row-major rows × q: J less
	// its context's column means (ColumnMeans, CenteredRow). Nil when
	// built with BuildOptions.DropCentered; FitDesign never reads it.
	JC    []float64
	YStar []float64 // norm-matched target y* (eq. 4)
	// Pairs, when not nil, are the human comparisons the pairwise metric
	// counts instead of the pairs of unequal human scores (docs/protocol.md
	// §6): per context, those whose winner and loser are both its rows.
	// A context without one is left out of that metric. Nil: the design
	// has no comparison labels (BuildOptions.Comparisons).
	Pairs [][]Pair
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
	// DropCentered leaves Design.JC nil: FitDesign centers J's rows as it
	// reads them, so a design only fitted need not hold J̃ too (half its
	// size). Callers that read JC (inspection, the confirmatory split,
	// calibrators) leave it false.
	DropCentered bool
	// MeanOver, when not nil, restricts the column means that fill missing
	// cells to the candidates of the contexts it accepts (the exploration
	// contexts of docs/protocol.md §13); nil: every candidate of the design.
	MeanOver func(context string) bool
	// Comparisons, when not nil, are pairwise human labels (MT-Bench's
	// individual judgments): the design keeps those of its candidates in
	// Design.Pairs, and the pairwise metric counts them. The labels
	// remain the training target. ComparisonsFile names them in errors
	// and warnings ("comparisons" when empty).
	Comparisons     []model.Comparison
	ComparisonsFile string
}

type candKey struct{ ctx, cand string }

// at formats a file:line prefix; line 0 (in-memory rows) leaves it out.
func at(file string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

// ErrNoProbes is returned when scores hold a baseline but no probe:
// there is nothing to fit, though their agreement with the labels can be
// measured (prism agree, calib/agree).
var ErrNoProbes = errors.New("nothing to fit")

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
//
// BuildDesign is a DesignBuilder fed rows: a caller reading rows from a
// file can feed one as it reads and never hold them all.
func BuildDesign(rows []model.ScoreRow, labels []model.Label, opts BuildOptions) (*Design, []string, error) {
	b := NewDesignBuilder(opts)
	b.reserve(len(labels)) // usually one candidate per label
	for i := range rows {
		if err := b.Add(&rows[i]); err != nil {
			return nil, nil, err
		}
	}
	return b.Build(labels)
}

// DesignBuilder folds score rows, one at a time and in order, into what
// BuildDesign needs of them: per candidate and probe the sum and count of
// its scores. Its memory grows with candidates × probes, not with rows.
// Feeding rows to Add and then calling Build gives what BuildDesign gives
// for the same rows, number for number and error for error. Build uses
// the builder up: it frees each probe's sums once they are in the design,
// so that the sums and the design are not held whole at once.
type DesignBuilder struct {
	opts BuildOptions
	sf   string // the scores file's name in errors

	// Each distinct probe name is parsed once; rows keep its index.
	probes  []probeInfo
	probeOf map[string]int32

	// Candidates are numbered in order of first row (candOf); per
	// candidate its rows other than rubric ratings, and per score-column
	// probe (baseline, an attribute sign, a context probe) the sum and
	// count of its scores.
	ncands      int
	ncols       int // attribute-sign and context probes seen: J's columns
	candOf      map[candKey]int32
	rowsOf      []int32
	sums        [][]float64 // per probe, per candidate; nil for other probes
	cnts        [][]int32
	nrows       int
	hint        int // candidates expected (reserve)
	last        candKey
	lastIdx     int32
	haveLastIdx bool
	built       bool // Build has run and freed the sums
}

type probeInfo struct {
	name, kind, attr, sign string
	line                   int // first row with this probe
}

// NewDesignBuilder returns an empty builder; opts are BuildDesign's.
func NewDesignBuilder(opts BuildOptions) *DesignBuilder {
	sf := opts.ScoresFile
	if sf == "" {
		sf = "scores"
	}
	return &DesignBuilder{opts: opts, sf: sf, probeOf: map[string]int32{}, candOf: map[candKey]int32{}}
}

// Reserve sizes the builder for n candidates (the labels' count, say),
// so that its per-probe sums are allocated once at their final size
// rather than grown by doubling. It is a hint: more candidates still fit.
func (b *DesignBuilder) Reserve(n int) { b.reserve(n) }

// DesignBytes is the size in bytes of the design Build would make from
// the candidates reserved or added so far, all labelled, and the probes
// seen so far: 8 × rows × (2q + 4) for J, J̃, s0, y, v and y*, J̃ counted
// even with DropCentered. It grows as rows come; prism fit sizes its
// memory limit from it.
func (b *DesignBuilder) DesignBytes() int64 {
	return 8 * int64(max(b.hint, b.ncands)) * int64(2*b.ncols+4)
}

// reserve sizes the builder for n candidates.
func (b *DesignBuilder) reserve(n int) {
	b.hint = n
	b.rowsOf = slices.Grow(b.rowsOf, n)
	b.candOf = make(map[candKey]int32, n)
}

// Add folds in one score row. It fails, naming the row's line, on a probe
// name ParseProbe refuses or a score CheckNumber refuses.
func (b *DesignBuilder) Add(r *model.ScoreRow) error {
	if b.built {
		return errors.New("calib: DesignBuilder.Add after Build")
	}
	pi, seen := b.probeOf[r.Probe]
	if !seen {
		kind, attr, sign, err := model.ParseProbe(r.Probe)
		if err != nil {
			return fmt.Errorf("%s: field \"probe\": %v", at(b.sf, r.Line), err)
		}
		pi = int32(len(b.probes))
		b.probes = append(b.probes, probeInfo{r.Probe, kind, attr, sign, r.Line})
		b.probeOf[r.Probe] = pi
		var sum []float64
		var cnt []int32
		if kind == model.ProbeAttr || kind == model.ProbeContext {
			b.ncols++
		}
		if kind == model.ProbeBaseline || kind == model.ProbeAttr || kind == model.ProbeContext {
			n := max(b.ncands, b.hint)
			sum, cnt = make([]float64, 0, n), make([]int32, 0, n)
		}
		b.sums, b.cnts = append(b.sums, sum), append(b.cnts, cnt)
	}
	if err := model.CheckNumber(r.Score); !r.Missing && err != nil {
		return fmt.Errorf("%s: field \"score\": %v", at(b.sf, r.Line), err)
	}
	b.nrows++
	p := &b.probes[pi]
	if p.kind == model.ProbeRubric {
		return nil // rubric ratings are no probe: not even counted (docs/rubrics.md)
	}
	// Rows usually come candidate by candidate: reuse the last lookup.
	if !b.haveLastIdx || r.Context != b.last.ctx || r.Candidate != b.last.cand {
		k := candKey{r.Context, r.Candidate}
		ci, ok := b.candOf[k]
		if !ok {
			ci = int32(b.ncands)
			b.ncands++
			b.candOf[k] = ci
			b.rowsOf = append(b.rowsOf, 0)
		}
		b.last, b.lastIdx, b.haveLastIdx = k, ci, true
	}
	ci := b.lastIdx
	b.rowsOf[ci]++
	if b.sums[pi] == nil || r.Missing { // neutral probes are controls, not columns
		return nil
	}
	sum, cnt := b.sums[pi], b.cnts[pi]
	if int(ci) >= len(sum) {
		sum, cnt = growTo(sum, int(ci)+1), growTo(cnt, int(ci)+1)
		b.sums[pi], b.cnts[pi] = sum, cnt
	}
	sum[ci] += r.Score
	cnt[ci]++
	return nil
}

// growTo extends s with zeros to length n, doubling its capacity when it
// must grow: a slice grown one candidate at a time by append is copied
// about five times over at large sizes, one doubled about twice.
func growTo[T any](s []T, n int) []T {
	if n > cap(s) {
		t := make([]T, len(s), max(n, 2*cap(s), 64))
		copy(t, s)
		s = t
	}
	return s[:n]
}

// Build makes the design of the rows added so far and labels. It can be
// called once: a second call fails, as do Adds after it.
func (b *DesignBuilder) Build(labels []model.Label) (*Design, []string, error) {
	if b.built {
		return nil, nil, errors.New("calib: DesignBuilder.Build called twice")
	}
	b.built = true
	opts := b.opts
	lf := opts.LabelsFile
	if lf == "" {
		lf = "labels"
	}
	d, err := b.columns()
	if err != nil {
		return nil, nil, err
	}
	if err := checkLabels(labels, lf); err != nil {
		return nil, nil, err
	}
	lc, warnings, err := b.labelCells(d, labels, lf)
	if err != nil {
		return nil, nil, err
	}
	order, w := d.groupLabels(labels, opts.Global, lf)
	warnings = append(warnings, w...)
	if err := b.fillColumns(d, lc, labels, order); err != nil {
		return nil, nil, err
	}
	n := len(order)
	d.Human = make([]float64, n)
	d.V = make([]float64, n)
	d.YStar = make([]float64, n)
	for r, li := range order {
		d.Human[r] = labels[li].Human
	}
	if !opts.DropCentered {
		d.JC = slices.Clone(d.J)
	}
	for g := range d.Contexts {
		d.centerContext(d.Off[g], d.Off[g+1])
	}
	w, err = d.setPairs(opts)
	return d, append(warnings, w...), err
}

// columns names the design's columns from the probes seen: attributes need
// both signs, and a baseline must exist.
func (b *DesignBuilder) columns() (*Design, error) {
	sf, probes := b.sf, b.probes
	type signLines struct{ plus, minus int }
	attrSeen := map[string]*signLines{}
	ctxSeen := map[string]bool{}
	baseline := false
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
	if b.nrows == 0 {
		return nil, fmt.Errorf("%s: no score rows", sf)
	}
	if !baseline {
		return nil, fmt.Errorf("%s: field \"probe\": no \"baseline\" rows; s0 is needed for every candidate", sf)
	}
	d := &Design{Imputed: map[string]int{}}
	for _, a := range slices.Sorted(maps.Keys(attrSeen)) { // sorted: the first offender is reported
		s := attrSeen[a]
		if s.plus < 0 {
			return nil, fmt.Errorf("%s: field \"probe\": attribute %q has %s rows but no %s rows (both signs are needed)", at(sf, s.minus), a, a+":-", a+":+")
		}
		if s.minus < 0 {
			return nil, fmt.Errorf("%s: field \"probe\": attribute %q has %s rows but no %s rows (both signs are needed)", at(sf, s.plus), a, a+":+", a+":-")
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
		return nil, fmt.Errorf("%s: field \"probe\": no attribute (ATTR:+/ATTR:-) or context (ctx:NAME) probes, %w", sf, ErrNoProbes)
	}
	d.ScoreColumns = append([]string{"baseline"}, d.Columns...)
	return d, nil
}

// checkLabels checks every label's ids and number, and that no
// candidate is labelled twice.
func checkLabels(labels []model.Label, lf string) error {
	labelOf := make(map[candKey]int, len(labels))
	for i, l := range labels {
		if l.Context == "" || l.Candidate == "" {
			return fmt.Errorf("%s: field \"context\"/\"candidate\": empty id", at(lf, l.Line))
		}
		if err := model.CheckNumber(l.Human); err != nil {
			return fmt.Errorf("%s: field \"human\": %v", at(lf, l.Line), err)
		}
		k := candKey{l.Context, l.Candidate}
		if j, dup := labelOf[k]; dup {
			return fmt.Errorf("%s: field \"candidate\": duplicate label for context %q candidate %q (first on line %d)", at(lf, l.Line), l.Context, l.Candidate, labels[j].Line)
		}
		labelOf[k] = i
	}
	return nil
}

// labelScores reads the builder's per-candidate sums and counts by label
// index and score column (no count: no score).
type labelScores struct {
	b           *DesignBuilder
	candOfLabel []int32 // builder candidate per label, -1 when unscored
	probeOfCol  []int32 // builder probe per score column
}

func (lc *labelScores) cell(li, c int) (sum float64, cnt int32) {
	ci := lc.candOfLabel[li]
	p := lc.probeOfCol[c]
	if ci < 0 || int(ci) >= len(lc.b.cnts[p]) {
		return 0, 0
	}
	return lc.b.sums[p][ci], lc.b.cnts[p][ci]
}

// labelCells indexes the builder's scores by label, warns of the score
// rows of unlabelled candidates and fails on a labelled candidate
// without any score. It frees the builder's candidate keys.
func (b *DesignBuilder) labelCells(d *Design, labels []model.Label, lf string) (*labelScores, []string, error) {
	sf, probes := b.sf, b.probes
	var warnings []string
	colOf := make(map[string]int, len(d.ScoreColumns))
	for i, c := range d.ScoreColumns {
		colOf[c] = i
	}
	nc := len(d.ScoreColumns)
	probeOfCol := make([]int32, nc)
	for i, p := range probes {
		if c, ok := colOf[p.name]; ok {
			probeOfCol[c] = int32(i)
		}
	}
	candOfLabel := make([]int32, len(labels))
	unlabelledRows, unlabelled := 0, 0
	labelled := make([]bool, b.ncands)
	for i, l := range labels {
		ci, ok := b.candOf[candKey{l.Context, l.Candidate}]
		if !ok {
			ci = -1
		} else {
			labelled[ci] = true
		}
		candOfLabel[i] = ci
	}
	for ci, ok := range labelled {
		if !ok && b.rowsOf[ci] > 0 {
			unlabelledRows += int(b.rowsOf[ci])
			unlabelled++
		}
	}
	// Candidates are indices from here on: free their keys and index.
	b.candOf, b.rowsOf, b.last, labelled = nil, nil, candKey{}, nil
	lc := &labelScores{b: b, candOfLabel: candOfLabel, probeOfCol: probeOfCol}
	if unlabelledRows > 0 {
		warnings = append(warnings, fmt.Sprintf("%s: ignored %d score rows of %d candidates without a label in %s", sf, unlabelledRows, unlabelled, lf))
	}
	for i, l := range labels {
		any := false
		for c := 0; c < nc; c++ {
			_, k := lc.cell(i, c)
			any = any || k > 0
		}
		if !any {
			return nil, nil, fmt.Errorf("%s: field \"candidate\": labelled candidate %q of context %q has no scores in %s", at(lf, l.Line), l.Candidate, l.Context, sf)
		}
	}
	return lc, warnings, nil
}

// groupLabels sets the design's contexts (byte order), their candidates
// (byte order) and offsets, skipping contexts with fewer than two
// labelled candidates unless global; it returns the label index of every
// design row.
func (d *Design) groupLabels(labels []model.Label, global bool, lf string) (order []int, warnings []string) {
	byCtx := map[string][]int{}
	for i, l := range labels {
		byCtx[l.Context] = append(byCtx[l.Context], i)
	}
	var ctxs, skipped []string
	for c, ls := range byCtx {
		if len(ls) < 2 && !global {
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
	return order, warnings
}

// fillColumns imputes every score column over the design's rows with
// its mean and makes J (eq. 1). Each score column is first filled in, in
// design row order, and its per-candidate sums freed; then J is made from
// the columns, each freed once differenced. The builder's sums and J are
// never held whole together: the peak is the filled columns and J, about
// J twice.
func (b *DesignBuilder) fillColumns(d *Design, lc *labelScores, labels []model.Label, order []int) error {
	opts, sf := b.opts, b.sf
	n, nc := len(order), len(d.ScoreColumns)
	q := d.Q()
	K := len(d.Attrs)
	cols := make([][]float64, nc)
	for c := 0; c < nc; c++ {
		var s float64
		m, present := 0, 0
		for _, li := range order {
			if sum, k := lc.cell(li, c); k > 0 {
				present++
				if opts.MeanOver != nil && !opts.MeanOver(labels[li].Context) {
					continue
				}
				s += sum / float64(k)
				m++
			}
		}
		if m == 0 && n > 0 {
			of := ""
			if opts.MeanOver != nil {
				of = " of the contexts its mean is taken over (exploration)"
			}
			return fmt.Errorf("%s: field \"score\": column %q has no score for any labelled candidate%s", sf, d.ScoreColumns[c], of)
		}
		mean := s / float64(max(m, 1))
		d.Means = append(d.Means, mean)
		d.Imputed[d.ScoreColumns[c]] = n - present
		col := make([]float64, n)
		for r, li := range order {
			col[r] = mean
			if sum, k := lc.cell(li, c); k > 0 {
				col[r] = sum / float64(k)
			}
		}
		cols[c] = col
		p := lc.probeOfCol[c]
		b.sums[p], b.cnts[p] = nil, nil
	}
	d.S0 = cols[0] // the baseline column is s0
	d.J = make([]float64, n*q)
	for c := 1; c < nc; c++ {
		col := cols[c]
		for r, v := range col {
			switch {
			case c <= 2*K && c%2 == 1: // ATTR:+: Δk+ = s(pk+) − s0
				d.J[r*q+c-1] = v - d.S0[r]
			case c <= 2*K: // ATTR:-: Δk− = s0 − s(pk−)
				d.J[r*q+c-1] = d.S0[r] - v
			default: // ctx:NAME
				d.J[r*q+c-1] = v - d.S0[r]
			}
		}
		cols[c] = nil
	}
	return nil
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
	if d.JC == nil {
		return
	}
	m := make([]float64, q)
	d.ColumnMeans(lo, hi, m)
	for r := lo; r < hi; r++ {
		d.CenteredRow(r, m, d.JC[r*q:(r+1)*q])
	}
}

// ColumnMeans stores in m (length Q) the mean of each column of J over
// rows [lo, hi), summed in row order: m_c = (Σ_r J_rc) / (hi − lo), what
// centering subtracts within a context.
func (d *Design) ColumnMeans(lo, hi int, m []float64) {
	q := d.Q()
	clear(m)
	for r := lo; r < hi; r++ {
		for c, x := range d.J[r*q : (r+1)*q] {
			m[c] += x
		}
	}
	n := float64(hi - lo)
	for c := range m {
		m[c] /= n
	}
}

// CenteredRow stores row r of J̃ in dst: J_rc − m_c with m the
// ColumnMeans of r's context, bit for bit Design.JC's row.
func (d *Design) CenteredRow(r int, m, dst []float64) {
	q := d.Q()
	for c, x := range d.J[r*q : (r+1)*q] {
		dst[c] = x - m[c]
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
	d.centerOHMeans(lo, hi, oc, hc, nil, nil)
}

// centerOHMeans is centerOH that also stores, when mo is not nil, the
// means it subtracted in mo and mh (K each): with them ohRow gives any
// row's Õ and H̃ without holding them all.
func (d *Design) centerOHMeans(lo, hi int, oc, hc, mo, mh []float64) {
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
		m, h := so/float64(n), sh/float64(n)
		for i := 0; i < n; i++ {
			oc[i*K+k] -= m
			hc[i*K+k] -= h
		}
		if mo != nil {
			mo[k], mh[k] = m, h
		}
	}
}

// ohRow stores row r's Õ in o and, when h is not nil, its H̃ in h, given
// the means mo and mh of its rows (centerOHMeans): the same operations on
// the same numbers as centerOH, so the same values to the last bit.
func (d *Design) ohRow(r int, mo, mh, o, h []float64) {
	q := d.Q()
	j := d.J[r*q:]
	for k := range o {
		o[k] = (j[2*k]+j[2*k+1])/2 - mo[k]
	}
	for k := range h {
		h[k] = j[2*k] - j[2*k+1] - mh[k]
	}
}
