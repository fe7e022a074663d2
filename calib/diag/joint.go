package diag

import (
	"context"
	"fmt"
	"slices"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
)

// Joint instructions (docs/protocol.md §15.2, paper §B.5, Fig. 7). For a
// pair (a, b) with s_uv the score under the joint instruction with signs
// u, v (centered within context per run):
//
//	M_a = (s++ + s+− − s−+ − s−−)/4     main effect of a
//	M_b = (s++ − s+− + s−+ − s−−)/4     main effect of b
//	I_ab = (s++ − s+− − s−+ + s−−)/4    interaction
//
// Each main effect is projected onto its attribute's single-probe
// standard half-difference O = (s(ATTR:+) − s(ATTR:−))/2:
// Q(M_a, O_a)/Q(O_a, O_a) (1: the same projected effect as alone). The
// interaction ratio is sqrt(max(Q(I,I),0)) / sqrt(max((Q(M_a,M_a) +
// Q(M_b,M_b))/2, 0)). Pooled over pairs, second moments are summed before
// dividing: ΣQ(M,O)/ΣQ(O,O) over both attributes of every pair, and the
// mean Q(I,I) over the mean Q(M,M).

// JointReport is the joint-instruction diagnostic (JSON: docs/diagnostics.md).
type JointReport struct {
	Runs        int         `json:"runs"`
	MinRuns     int         `json:"min_runs"`
	MinContexts int         `json:"min_contexts"`
	Bootstrap   int         `json:"bootstrap"`
	Seed        uint64      `json:"seed"`
	TooFew      string      `json:"too_few,omitempty"`
	Pairs       []JointPair `json:"pairs"`
	// Pooled over the pairs that are not too few.
	PooledPairs       int `json:"pooled_pairs"`
	PooledProjection  Est `json:"pooled_projection"`
	PooledInteraction Est `json:"pooled_interaction_ratio"`
}

// JointPair is one pair's diagnostic.
type JointPair struct {
	A           string `json:"a"`
	B           string `json:"b"`
	Contexts    int    `json:"contexts"`
	Candidates  int    `json:"candidates"`
	TooFew      string `json:"too_few,omitempty"`
	ProjectionA Est    `json:"projection_a"` // Q(M_a, O_a)/Q(O_a, O_a)
	ProjectionB Est    `json:"projection_b"`
	MainRMSA    Est    `json:"main_rms_a"` // reproducible RMS of M_a
	MainRMSB    Est    `json:"main_rms_b"`
	InteractRMS Est    `json:"interaction_rms"`
	Interaction Est    `json:"interaction_ratio"` // RMS(I) / sqrt((Q(M_a,M_a)+Q(M_b,M_b))/2)
}

// Joint computes the joint-instruction diagnostic from a study's score
// rows. A pair needs ≥ 2 runs and MinContexts contexts of ≥ 2 candidates
// answered under its four joint instructions and both attributes' standard
// probes in every run; otherwise it is "too few".
func Joint(ctx context.Context, rows []model.ScoreRow, opts Options) (*JointReport, error) {
	opts = opts.withDefaults()
	t, err := newDiagTable(rows, opts.ScoresFile)
	if err != nil {
		return nil, err
	}
	rep := &JointReport{Runs: len(t.runs), MinRuns: MinRuns, MinContexts: opts.MinContexts, Bootstrap: opts.Bootstrap, Seed: opts.Seed,
		PooledProjection: nanEst(), PooledInteraction: nanEst()}
	pairs := jointPairs(t)
	switch {
	case len(pairs) == 0:
		rep.TooFew = "no joint-instruction (joint:A/B:SIGNS) scores: run a bank with a [joint] table, such as the built-in ladder"
		return rep, nil
	case tooFewRuns(len(t.runs)) != "":
		rep.TooFew = tooFewRuns(len(t.runs))
		return rep, nil
	}
	qb := newQBoot(len(t.ctxs))
	stats := make(jointStats, len(pairs))
	for pi, p := range pairs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		jp, ps := jointPair(t, qb, p, opts)
		stats[pi] = ps
		rep.Pairs = append(rep.Pairs, jp)
	}
	next := qb.estimates(stats.derive, opts.Bootstrap, opts.Seed)
	for pi, ps := range stats {
		if ps == nil {
			continue
		}
		jp := &rep.Pairs[pi]
		jp.ProjectionA, jp.ProjectionB, jp.MainRMSA, jp.MainRMSB, jp.InteractRMS, jp.Interaction = next(), next(), next(), next(), next(), next()
		rep.PooledPairs++
	}
	rep.PooledProjection, rep.PooledInteraction = nanEst(), nanEst()
	if rep.PooledPairs > 0 {
		rep.PooledProjection, rep.PooledInteraction = next(), next()
	} else {
		rep.TooFew = fmt.Sprintf("no pair has enough data (each needs %d contexts of 2 or more candidates answered under its joint and single probes in every run)", opts.MinContexts)
	}
	return rep, nil
}

// attrPair is an attribute pair asked jointly.
type attrPair struct{ a, b string }

// jointPairs lists the attribute pairs of the joint probes, in name order.
func jointPairs(t *diagTable) []attrPair {
	set := map[attrPair]bool{}
	for p := range t.score {
		if a, b, _, ok := model.SplitJointProbe(p); ok {
			set[attrPair{a, b}] = true
		}
	}
	pairs := make([]attrPair, 0, len(set))
	for p := range set {
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(x, y attrPair) int {
		if x.a != y.a {
			return cmpString(x.a, y.a)
		}
		return cmpString(x.b, y.b)
	})
	return pairs
}

// pstats are the stat indices (qBoot) of one pair.
type pstats struct{ maO, mbO, oaa, obb, mama, mbmb, ii int }

// jointStats are the stats of every pair, nil for one without enough data.
type jointStats []*pstats

// jointPair registers pair p's statistics in qb and returns its report
// entry, or, without enough usable contexts, the entry saying so and nil
// stats.
func jointPair(t *diagTable, qb *qBoot, p attrPair, opts Options) (JointPair, *pstats) {
	R := len(t.runs)
	n := nanEst() // numbers only with enough data
	jp := JointPair{A: p.a, B: p.b, ProjectionA: n, ProjectionB: n, MainRMSA: n, MainRMSB: n, InteractRMS: n, Interaction: n}
	s := func(signs string) string { return model.JointProbe(p.a, p.b, signs) }
	probes := []string{s("++"), s("+-"), s("-+"), s("--"), p.a + ":+", p.a + ":-", p.b + ":+", p.b + ":-"}
	cds, cands := t.usable(probes)
	jp.Contexts, jp.Candidates = len(cds), cands
	if jp.TooFew = calib.TooFew(jp.Contexts, opts.MinContexts, "%d contexts with 2 or more candidates answered under the pair's joint and single probes in every run; needs %d"); jp.TooFew != "" {
		return jp, nil
	}
	ma := []term{{s("++"), .25}, {s("+-"), .25}, {s("-+"), -.25}, {s("--"), -.25}}
	mb := []term{{s("++"), .25}, {s("+-"), -.25}, {s("-+"), .25}, {s("--"), -.25}}
	in := []term{{s("++"), .25}, {s("+-"), -.25}, {s("-+"), -.25}, {s("--"), .25}}
	oa := []term{{p.a + ":+", .5}, {p.a + ":-", -.5}}
	ob := []term{{p.b + ":+", .5}, {p.b + ":-", -.5}}
	ps := &pstats{}
	for _, x := range []struct {
		j    *int
		u, w []term
	}{{&ps.maO, ma, oa}, {&ps.mbO, mb, ob}, {&ps.oaa, oa, oa}, {&ps.obb, ob, ob}, {&ps.mama, ma, ma}, {&ps.mbmb, mb, mb}, {&ps.ii, in, in}} {
		*x.j = qb.stat()
		qb.addQ(*x.j, cds, x.u, x.w, R)
	}
	return jp, ps
}

// pos is x when positive, else NaN.
func pos(x float64) float64 {
	if x > 0 {
		return x
	}
	return nanFloat()
}

// derive lays out every reported quantity: 6 per pair with enough data,
// then the 2 pooled ones.
func (stats jointStats) derive(q []float64) []float64 {
	var out []float64
	var smo, soo, sii, smm float64
	k := 0
	for _, ps := range stats {
		if ps == nil {
			continue
		}
		mm := (q[ps.mama] + q[ps.mbmb]) / 2
		out = append(out, q[ps.maO]/pos(q[ps.oaa]), q[ps.mbO]/pos(q[ps.obb]),
			reproRMSOf(q[ps.mama]), reproRMSOf(q[ps.mbmb]), reproRMSOf(q[ps.ii]), div(reproRMSOf(q[ps.ii]), reproRMSOf(mm)))
		smo += q[ps.maO] + q[ps.mbO]
		soo += q[ps.oaa] + q[ps.obb]
		sii += q[ps.ii]
		smm += mm
		k++
	}
	if k > 0 {
		out = append(out, smo/pos(soo), div(reproRMSOf(sii/float64(k)), reproRMSOf(smm/float64(k))))
	}
	return out
}
