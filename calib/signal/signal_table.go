package signal

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/prism-eval/prism/calib"

	"github.com/prism-eval/prism/model"
)

// candKey is a (context, candidate) pair, as calib's design keys them.
type candKey struct{ ctx, cand string }

// scoreTable lays tidy score rows out per run and candidate for the
// signal diagnostics. Candidates are numbered context by context (both in
// byte order), so context g holds candidates off[g] to off[g+1]. Every
// matrix is indexed [run][candidate] and holds NaN where there is no score.
type scoreTable struct {
	runs      []string
	ctxs      []string
	off       []int
	attrs     []string // sorted
	ctxProbes []string // context probe names without "ctx:", sorted
	neutrals  []string // neutral clause names, sorted
	s0        [][]float64
	series    []*scoreSeries // per probe and wording: probes in report order, wordings sorted
	probes    []*scoreSeries // per probe, wordings averaged; same order, wording ""
}

// scoreSeries is one probe's (or one wording's) mean scores.
type scoreSeries struct {
	probe   string
	kind    string // model.ProbeAttr, model.ProbeContext or model.ProbeNeutral
	name    string // attribute, context probe or neutral clause name
	sign    string // "+" or "-" for attributes
	wording string
	unit    int // index into the report's units; −1 for neutral clauses
	mean    [][]float64
}

func (t *scoreTable) nCand() int { return t.off[len(t.off)-1] }

// probeOrder sorts probe names as the report lists them: attributes by
// name (+ before −), then context probes, then neutral clauses.
func probeOrder(kind, name, sign string) string {
	rank := map[string]string{model.ProbeAttr: "0", model.ProbeContext: "1", model.ProbeNeutral: "2"}[kind]
	if sign == "-" {
		sign = "~" // after "+"
	}
	return rank + name + "\x00" + sign
}

// tabulate reads rows into a scoreTable, averaging rows that share run,
// candidate, probe and wording; the baseline averages all its rows of a
// run. Missing scores are skipped.
func tabulate(rows []model.ScoreRow, file string) (*scoreTable, error) {
	sc, err := scanRows(rows, file)
	if err != nil {
		return nil, err
	}
	t := &scoreTable{runs: slices.Sorted(maps.Keys(sc.runSet))}
	candOf := t.index(sc.cands)
	unitOf := t.units(sc.probeOf)
	seriesOf, probeSeriesOf := t.newSeries(sc, unitOf)
	t.fill(rows, sc.probeOf, candOf, seriesOf, probeSeriesOf)
	return t, nil
}

// probeInfo is a parsed probe name.
type probeInfo struct{ kind, name, sign string }

// rowScan is what tabulate's first pass over the rows collects.
type rowScan struct {
	probeOf  map[string]probeInfo
	runSet   map[string]bool
	cands    map[candKey]bool
	wordings map[string]map[string]bool // probe → wordings
}

// scanRows parses every probe name and checks the rows the diagnostics
// read, collecting their runs, candidates and wordings.
func scanRows(rows []model.ScoreRow, file string) (*rowScan, error) {
	probeOf := map[string]probeInfo{}
	runSet := map[string]bool{}
	cands := map[candKey]bool{}
	wordings := map[string]map[string]bool{} // probe → wordings
	for i := range rows {
		r := &rows[i]
		p, seen := probeOf[r.Probe]
		if !seen {
			kind, name, sign, err := model.ParseProbe(r.Probe)
			if err != nil {
				return nil, fmt.Errorf("%s: field \"probe\": %v", calib.At(file, r.Line), err)
			}
			p = probeInfo{kind, name, sign}
			probeOf[r.Probe] = p
		}
		if notSignal(p.kind) {
			continue
		}
		if r.Missing {
			continue
		}
		if err := model.CheckNumber(r.Score); err != nil {
			return nil, fmt.Errorf("%s: field \"score\": %v", calib.At(file, r.Line), err)
		}
		if r.Context == "" || r.Candidate == "" {
			return nil, fmt.Errorf("%s: field \"context\"/\"candidate\": empty id", calib.At(file, r.Line))
		}
		runSet[r.Run] = true
		cands[candKey{r.Context, r.Candidate}] = true
		if p.kind != model.ProbeBaseline {
			w := wordings[r.Probe]
			if w == nil {
				w = map[string]bool{}
				wordings[r.Probe] = w
			}
			w[r.Wording] = true
		}
	}
	return &rowScan{probeOf: probeOf, runSet: runSet, cands: cands, wordings: wordings}, nil
}

// index numbers the candidates context by context (both in byte order),
// setting the contexts and their offsets, and returns each candidate's
// number.
func (t *scoreTable) index(cands map[candKey]bool) map[candKey]int {
	keys := slices.SortedFunc(maps.Keys(cands), func(a, b candKey) int {
		if c := strings.Compare(a.ctx, b.ctx); c != 0 {
			return c
		}
		return strings.Compare(a.cand, b.cand)
	})
	candOf := make(map[candKey]int, len(keys))
	for i, k := range keys {
		if len(t.ctxs) == 0 || t.ctxs[len(t.ctxs)-1] != k.ctx {
			t.ctxs = append(t.ctxs, k.ctx)
			t.off = append(t.off, i)
		}
		candOf[k] = i
	}
	t.off = append(t.off, len(keys))
	return candOf
}

// units sets the attributes, context probes and neutral clauses seen and
// returns the report's unit index of every attribute and context probe
// (keyed by kind + name).
func (t *scoreTable) units(probeOf map[string]probeInfo) map[string]int {
	attrSet, ctxSet, neutralSet := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range probeOf {
		switch p.kind {
		case model.ProbeAttr:
			attrSet[p.name] = true
		case model.ProbeContext:
			ctxSet[p.name] = true
		case model.ProbeNeutral:
			neutralSet[p.name] = true
		}
	}
	t.attrs = slices.Sorted(maps.Keys(attrSet))
	t.ctxProbes = slices.Sorted(maps.Keys(ctxSet))
	t.neutrals = slices.Sorted(maps.Keys(neutralSet))
	unitOf := map[string]int{}
	for i, a := range t.attrs {
		unitOf[model.ProbeAttr+a] = i
	}
	for i, c := range t.ctxProbes {
		unitOf[model.ProbeContext+c] = len(t.attrs) + i
	}
	return unitOf
}

// newMatrix is an empty [run][candidate] matrix of the table.
func (t *scoreTable) newMatrix() [][]float64 {
	m := make([][]float64, len(t.runs))
	for r := range m {
		m[r] = make([]float64, t.nCand())
	}
	return m
}

// newSeries makes the table's series, per probe (report order) and per
// probe and wording (sorted), and returns them by key.
func (t *scoreTable) newSeries(sc *rowScan, unitOf map[string]int) (seriesOf map[[2]string]*scoreSeries, probeSeriesOf map[string]*scoreSeries) {
	probeOf, wordings, newMatrix := sc.probeOf, sc.wordings, t.newMatrix
	names := slices.Collect(maps.Keys(wordings)) // rubric probes were skipped above
	slices.SortFunc(names, func(a, b string) int {
		pa, pb := probeOf[a], probeOf[b]
		return strings.Compare(probeOrder(pa.kind, pa.name, pa.sign), probeOrder(pb.kind, pb.name, pb.sign))
	})
	seriesOf = map[[2]string]*scoreSeries{}
	probeSeriesOf = map[string]*scoreSeries{}
	for _, name := range names {
		p := probeOf[name]
		unit := -1
		if p.kind != model.ProbeNeutral {
			unit = unitOf[p.kind+p.name]
		}
		ps := &scoreSeries{probe: name, kind: p.kind, name: p.name, sign: p.sign, unit: unit, mean: newMatrix()}
		t.probes = append(t.probes, ps)
		probeSeriesOf[name] = ps
		for _, w := range slices.Sorted(maps.Keys(wordings[name])) {
			s := *ps
			s.wording, s.mean = w, newMatrix()
			t.series = append(t.series, &s)
			seriesOf[[2]string{name, w}] = &s
		}
	}
	return seriesOf, probeSeriesOf
}

// fill sets the baseline and every series to the mean score per run and
// candidate (NaN without one): sums then means; counts share the
// matrices' layout.
func (t *scoreTable) fill(rows []model.ScoreRow, probeOf map[string]probeInfo, candOf map[candKey]int, seriesOf map[[2]string]*scoreSeries, probeSeriesOf map[string]*scoreSeries) {
	newMatrix := t.newMatrix
	runOf := map[string]int{}
	for i, r := range t.runs {
		runOf[r] = i
	}
	t.s0 = newMatrix()
	counts := map[*scoreSeries][][]float64{}
	s0n := newMatrix()
	for _, s := range t.series {
		counts[s] = newMatrix()
	}
	for _, s := range t.probes {
		counts[s] = newMatrix()
	}
	for i := range rows {
		r := &rows[i]
		if r.Missing || notSignal(probeOf[r.Probe].kind) {
			continue
		}
		run, c := runOf[r.Run], candOf[candKey{r.Context, r.Candidate}]
		if probeOf[r.Probe].kind == model.ProbeBaseline {
			t.s0[run][c] += r.Score
			s0n[run][c]++
			continue
		}
		for _, s := range []*scoreSeries{seriesOf[[2]string{r.Probe, r.Wording}], probeSeriesOf[r.Probe]} {
			s.mean[run][c] += r.Score
			counts[s][run][c]++
		}
	}
	divide := func(sum, cnt [][]float64) {
		for r := range sum {
			for c := range sum[r] {
				if cnt[r][c] > 0 {
					sum[r][c] /= cnt[r][c]
				} else {
					sum[r][c] = math.NaN()
				}
			}
		}
	}
	divide(t.s0, s0n)
	for s, cnt := range counts {
		divide(s.mean, cnt)
	}
}

// displacement returns s − s0 per run and candidate (NaN where either is
// missing), centered within context.
func (t *scoreTable) displacement(s [][]float64) [][]float64 {
	d := make([][]float64, len(s))
	for r := range s {
		d[r] = make([]float64, len(s[r]))
		for c, x := range s[r] {
			d[r][c] = x - t.s0[r][c]
		}
	}
	t.center(d)
	return d
}

// center centers every run's values within each context over the
// candidates that have a value; a context with a single value loses it
// (NaN), since a lone candidate carries no within-context information.
func (t *scoreTable) center(m [][]float64) {
	for _, row := range m {
		for g := range t.ctxs {
			seg := row[t.off[g]:t.off[g+1]]
			var s float64
			k := 0
			for _, x := range seg {
				if !math.IsNaN(x) {
					s += x
					k++
				}
			}
			if k == 0 {
				continue
			}
			mu := s / float64(k)
			for i, x := range seg {
				switch {
				case math.IsNaN(x):
				case k < 2:
					seg[i] = math.NaN()
				default:
					seg[i] = x - mu
				}
			}
		}
	}
}

// notSignal reports the probe kinds the signal screen leaves out: rubric
// ratings are no probe of the bank (docs/rubrics.md); graded wordings,
// worded controls and joint instructions are the wording diagnostics'
// (docs/diagnostics.md).
func notSignal(kind string) bool {
	return kind == model.ProbeRubric || kind == model.ProbeLevel || kind == model.ProbeJoint
}
