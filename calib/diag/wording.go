package diag

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/signal"

	"github.com/prism-eval/prism/model"
)

// Wording strength (docs/protocol.md §15.1, paper §2.2, Fig. 3, §B.3–B.4).
// For attribute k at wording level t (slightly, standard, much), with all
// scores centered within context per run:
//
//	O_k,t   = (s(p_k,t⁺) − s(p_k,t⁻))/2                 directional half-difference
//	E^c_k,t = (s(p_k,t⁺) + s(p_k,t⁻))/2 − s(p_k⁰)       shared component about the control
//	Z_k     = s(p_k⁰) − s0                              the worded control's own response
//	E^base  = E^c + Z = (s⁺ + s⁻)/2 − s0                shared component about Vanilla
//	D_k,t±  = s(p_k,t±) − s(p_k⁰)                        response to one wording, about the control
//
// The projection of D onto the standard half-difference is
// Q(D, O_k,std)/Q(O_k,std, O_k,std), with Q the cross-run product of §8
// (reproducible: same-run noise cancels); the reproducible RMS of a
// contrast U is sqrt(max(Q(U,U), 0)); pooling over attributes averages
// the Q's (second moments) before the square root.

// WordingLevels are the wording levels in ladder order, with the signed
// strength Fig. 3 plots them at (±1, ±2, ±3).
var WordingLevels = []struct {
	Name        string
	Strength    int
	Plus, Minus func(attr string) string
}{
	{"slightly", 1, func(a string) string { return model.LevelProbe(a, model.LevelSlightlyPlus) }, func(a string) string { return model.LevelProbe(a, model.LevelSlightlyMinus) }},
	{"standard", 2, func(a string) string { return a + ":+" }, func(a string) string { return a + ":-" }},
	{"much", 3, func(a string) string { return model.LevelProbe(a, model.LevelMuchPlus) }, func(a string) string { return model.LevelProbe(a, model.LevelMuchMinus) }},
}

// Options configure the wording and joint diagnostics.
type Options struct {
	Bootstrap   int    // context-bootstrap resamples (default 2000)
	Seed        uint64 // bootstrap seed (default 42)
	MinContexts int    // fewest contexts an estimate needs (default signal.MinContexts)
	ScoresFile  string // names the rows' source in errors
}

// DefaultOptions are 2,000 resamples, seed 42, signal.MinContexts.
func DefaultOptions() Options {
	return Options{Bootstrap: 2000, Seed: 42, MinContexts: signal.MinContexts}
}

// MinRuns is the fewest runs Q needs (a cross-run product).
const MinRuns = 2

// WordingReport is the wording-strength diagnostic (JSON: docs/diagnostics.md).
type WordingReport struct {
	Runs        int    `json:"runs"`
	MinRuns     int    `json:"min_runs"`
	MinContexts int    `json:"min_contexts"`
	Bootstrap   int    `json:"bootstrap"`
	Seed        uint64 `json:"seed"`
	// TooFew, when set, says why nothing was estimated.
	TooFew     string          `json:"too_few,omitempty"`
	Attributes []WordingAttr   `json:"attributes"`
	Pooled     []WordingPooled `json:"pooled"`
}

// WordingAttr is one attribute's ladder.
type WordingAttr struct {
	Name       string `json:"name"`
	Contexts   int    `json:"contexts"`   // contexts with ≥ 2 usable candidates
	Candidates int    `json:"candidates"` // usable candidates: every needed condition in every run
	TooFew     string `json:"too_few,omitempty"`
	// Z's projection onto O_std and reproducible RMS.
	ControlProjection Est            `json:"control_projection_vs_baseline"`
	ZRMS              Est            `json:"z_rms"`
	Levels            []WordingLevel `json:"levels"`
}

// WordingLevel is one attribute at one wording level.
type WordingLevel struct {
	Level    string `json:"level"`
	Strength int    `json:"strength"`
	// Projections of D_t± (about the control) and of s_t± − s0 (about
	// the Vanilla baseline) onto O_std.
	PlusProjection      Est `json:"plus_projection"`
	MinusProjection     Est `json:"minus_projection"`
	PlusProjectionBase  Est `json:"plus_projection_vs_baseline"`
	MinusProjectionBase Est `json:"minus_projection_vs_baseline"`
	ORMS                Est `json:"o_rms"`
	EcRMS               Est `json:"ec_rms"`
	EbaseRMS            Est `json:"ebase_rms"`
}

// WordingPooled pools one level over the attributes that have it.
type WordingPooled struct {
	Level      string   `json:"level"`
	Strength   int      `json:"strength"`
	Attributes []string `json:"attributes"`
	ORMS       Est      `json:"o_rms"`
	EcRMS      Est      `json:"ec_rms"`
	EbaseRMS   Est      `json:"ebase_rms"`
	EcOverO    Est      `json:"ec_over_o"`
	EbaseOverO Est      `json:"ebase_over_o"`
}

// Est is an estimate with its 95% context-bootstrap interval (null in
// JSON when undefined).
type Est struct {
	Value float64
	CI    [2]float64
}

// MarshalJSON writes {"value": v, "ci": [lo, hi]} with null for NaN.
func (e Est) MarshalJSON() ([]byte, error) {
	v, _ := calib.JSONFloat(e.Value).MarshalJSON()
	lo, _ := calib.JSONFloat(e.CI[0]).MarshalJSON()
	hi, _ := calib.JSONFloat(e.CI[1]).MarshalJSON()
	return []byte(`{"value":` + string(v) + `,"ci":[` + string(lo) + `,` + string(hi) + `]}`), nil
}

// Wording computes the wording-strength diagnostic from a study's score
// rows (one dataset, judge and bank). It needs ≥ 2 runs, and per attribute
// the baseline, the worded control ATTR:control and both standard signs;
// the slightly and much levels are reported where both signs exist. An
// attribute whose usable candidates (every needed condition answered in
// every run) fill fewer than MinContexts contexts of ≥ 2 candidates is
// "too few" and left out of the pooled rows.
func Wording(ctx context.Context, rows []model.ScoreRow, opts Options) (*WordingReport, error) {
	opts = opts.withDefaults()
	t, err := newDiagTable(rows, opts.ScoresFile)
	if err != nil {
		return nil, err
	}
	rep := &WordingReport{Runs: len(t.runs), MinRuns: MinRuns, MinContexts: opts.MinContexts, Bootstrap: opts.Bootstrap, Seed: opts.Seed}
	attrs := t.attributes()
	var ladder []string
	for _, a := range attrs {
		if t.has(model.LevelProbe(a, model.LevelControl)) {
			ladder = append(ladder, a)
		}
	}
	switch {
	case len(ladder) == 0:
		rep.TooFew = "no attribute has worded-control (ATTR:control) and standard (ATTR:+, ATTR:-) scores: run a bank with [levels], such as the built-in ladder"
		return rep, nil
	case tooFewRuns(len(t.runs)) != "":
		rep.TooFew = tooFewRuns(len(t.runs))
		return rep, nil
	}
	qb := newQBoot(len(t.ctxs))
	stats := make(ladderStats, len(ladder))
	for ai, a := range ladder {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		wa, as := ladderAttr(t, qb, a, opts)
		stats[ai] = as
		rep.Attributes = append(rep.Attributes, wa)
	}
	next := qb.estimates(stats.derive, opts.Bootstrap, opts.Seed)
	stats.fill(rep, ladder, next)
	if len(rep.Pooled) == 0 {
		rep.TooFew = fmt.Sprintf("no attribute has enough data (each needs %d contexts of 2 or more candidates answered under every ladder condition in every run)", opts.MinContexts)
	}
	return rep, nil
}

// lvStats are the stat indices (qBoot) of one ladder level of an attribute.
type lvStats struct {
	lv                                 int
	oo, ecec, ebeb, dpO, dmO, bpO, bmO int
}

// attrStats are the stat indices of one attribute and its levels present.
type attrStats struct {
	zz, zO int
	lvs    []lvStats
}

// stdOO is Q(O_std, O_std) of an attribute (the standard level's oo).
func (as *attrStats) stdOO() int {
	for _, s := range as.lvs {
		if s.lv == 1 {
			return s.oo
		}
	}
	panic("calib: standard level missing")
}

// ladderStats are the stats of every ladder attribute, nil for one
// without enough data.
type ladderStats []*attrStats

// ladderAttr registers attribute a's statistics in qb and returns its
// report entry, or, without standard scores or enough usable contexts,
// the entry saying so and nil stats.
func ladderAttr(t *diagTable, qb *qBoot, a string, opts Options) (WordingAttr, *attrStats) {
	R := len(t.runs)
	wa := WordingAttr{Name: a, ControlProjection: nanEst(), ZRMS: nanEst()} // numbers only with enough data
	ctl, base := model.LevelProbe(a, model.LevelControl), model.ProbeBaseline
	probes := []string{base, ctl}
	var lvs []int
	for li, l := range WordingLevels {
		if t.has(l.Plus(a)) && t.has(l.Minus(a)) {
			lvs = append(lvs, li)
			probes = append(probes, l.Plus(a), l.Minus(a))
		}
	}
	if !t.has(a+":+") || !t.has(a+":-") {
		wa.TooFew = "no standard (ATTR:+ and ATTR:-) scores"
		return wa, nil
	}
	// Usable contexts first: too few → no statistics at all.
	cds, cands := t.usable(probes)
	wa.Contexts, wa.Candidates = len(cds), cands
	if wa.TooFew = calib.TooFew(wa.Contexts, opts.MinContexts, "%d contexts with 2 or more candidates answered under every ladder condition in every run; needs %d"); wa.TooFew != "" {
		return wa, nil
	}
	std := WordingLevels[1]
	oStd := []term{{std.Plus(a), 0.5}, {std.Minus(a), -0.5}}
	z := []term{{ctl, 1}, {base, -1}}
	as := &attrStats{zz: qb.stat(), zO: qb.stat()}
	add := func(j int, u, w []term) { qb.addQ(j, cds, u, w, R) }
	add(as.zz, z, z)
	add(as.zO, z, oStd)
	for _, li := range lvs {
		l := WordingLevels[li]
		p, m := l.Plus(a), l.Minus(a)
		o := []term{{p, 0.5}, {m, -0.5}}
		ec := []term{{p, 0.5}, {m, 0.5}, {ctl, -1}}
		eb := []term{{p, 0.5}, {m, 0.5}, {base, -1}}
		s := lvStats{lv: li}
		for _, x := range []struct {
			j    *int
			u, w []term
		}{
			{&s.oo, o, o}, {&s.ecec, ec, ec}, {&s.ebeb, eb, eb},
			{&s.dpO, []term{{p, 1}, {ctl, -1}}, oStd}, {&s.dmO, []term{{m, 1}, {ctl, -1}}, oStd},
			{&s.bpO, []term{{p, 1}, {base, -1}}, oStd}, {&s.bmO, []term{{m, 1}, {base, -1}}, oStd},
		} {
			*x.j = qb.stat()
			add(*x.j, x.u, x.w)
		}
		as.lvs = append(as.lvs, s)
	}
	return wa, as
}

// derive lays out every reported quantity: per attribute 2 + 7 per
// level, then 5 per pooled level.
func (stats ladderStats) derive(q []float64) []float64 {
	var out []float64
	for _, as := range stats {
		if as == nil {
			continue
		}
		den := q[as.stdOO()]
		if !(den > 0) {
			den = math.NaN() // no reproducible standard response: projections undefined
		}
		out = append(out, q[as.zO]/den, reproRMSOf(q[as.zz]))
		for _, s := range as.lvs {
			out = append(out, q[s.dpO]/den, q[s.dmO]/den, q[s.bpO]/den, q[s.bmO]/den,
				reproRMSOf(q[s.oo]), reproRMSOf(q[s.ecec]), reproRMSOf(q[s.ebeb]))
		}
	}
	for li := range WordingLevels {
		var so, sec, seb float64
		k := 0
		for _, as := range stats {
			if as == nil {
				continue
			}
			for _, s := range as.lvs {
				if s.lv == li {
					so += q[s.oo]
					sec += q[s.ecec]
					seb += q[s.ebeb]
					k++
				}
			}
		}
		if k == 0 {
			continue
		}
		o, ec, eb := reproRMSOf(so/float64(k)), reproRMSOf(sec/float64(k)), reproRMSOf(seb/float64(k))
		out = append(out, o, ec, eb, div(ec, o), div(eb, o))
	}
	return out
}

// fill sets the estimates, drawn in derive's order from next, in the
// report's attributes and pooled levels.
func (stats ladderStats) fill(rep *WordingReport, ladder []string, next func() Est) {
	for ai, as := range stats {
		if as == nil {
			continue
		}
		wa := &rep.Attributes[indexOfAttr(rep.Attributes, ladder[ai])]
		wa.ControlProjection, wa.ZRMS = next(), next()
		for _, s := range as.lvs {
			l := WordingLevels[s.lv]
			wa.Levels = append(wa.Levels, WordingLevel{Level: l.Name, Strength: l.Strength,
				PlusProjection: next(), MinusProjection: next(), PlusProjectionBase: next(), MinusProjectionBase: next(),
				ORMS: next(), EcRMS: next(), EbaseRMS: next()})
		}
	}
	for li, l := range WordingLevels {
		var names []string
		for ai, as := range stats {
			if as == nil {
				continue
			}
			for _, s := range as.lvs {
				if s.lv == li {
					names = append(names, ladder[ai])
				}
			}
		}
		if len(names) == 0 {
			continue
		}
		rep.Pooled = append(rep.Pooled, WordingPooled{Level: l.Name, Strength: l.Strength, Attributes: names,
			ORMS: next(), EcRMS: next(), EbaseRMS: next(), EcOverO: next(), EbaseOverO: next()})
	}
}

// nanEst is an undefined estimate (null in JSON).
func nanEst() Est {
	return Est{math.NaN(), [2]float64{math.NaN(), math.NaN()}}
}

// div is a/b, NaN when b is 0 (an undefined ratio, never ±Inf).
func div(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

func indexOfAttr(as []WordingAttr, name string) int {
	for i, a := range as {
		if a.Name == name {
			return i
		}
	}
	panic("calib: attribute not in report")
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.Bootstrap <= 0 {
		o.Bootstrap = d.Bootstrap
	}
	if o.MinContexts <= 0 {
		o.MinContexts = d.MinContexts
	}
	return o
}

// attributes lists the attributes with standard or level probes, sorted.
func (t *diagTable) attributes() []string {
	set := map[string]bool{}
	for p := range t.score {
		kind, attr, _, err := model.ParseProbe(p)
		if err == nil && (kind == model.ProbeAttr || kind == model.ProbeLevel) {
			set[attr] = true
		}
	}
	out := make([]string, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}
