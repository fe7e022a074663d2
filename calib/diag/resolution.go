package diag

import (
	"context"
	"slices"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
)

// Score resolution (docs/protocol.md §15.3, paper §D.6): how coarse a
// judge's scores are on one scale, compared with another scale on the same
// items. For the items scored on both scales A and B (a candidate in a run
// counts when it has a baseline score on both):
//
//	tied-pair share   = #{within-context pairs {i, j} in run r: s0_i = s0_j} / #pairs
//	zero-response share = #{(i, r, p): s(x_i; p) = s0(x_i)} / #responses
//
// over the runs, contexts and unordered candidate pairs, and over the
// response columns p of J (ATTR:+, ATTR:−, ctx:NAME; a probe's wordings
// averaged within the run, as J defines s(x; p)) answered on both scales.
// Equality is exact (bitwise float64). The changes are B − A, with 95%
// context-bootstrap intervals.

// ResolutionReport is the score-resolution diagnostic (JSON: docs/diagnostics.md).
type ResolutionReport struct {
	Runs        int             `json:"runs"`
	Contexts    int             `json:"contexts"`   // contexts with a pair scored on both scales
	Candidates  int             `json:"candidates"` // candidates with a baseline on both scales in some run
	MinContexts int             `json:"min_contexts"`
	Bootstrap   int             `json:"bootstrap"`
	Seed        uint64          `json:"seed"`
	TooFew      string          `json:"too_few,omitempty"`
	Pairs       int             `json:"pairs"`     // candidate pairs (per run) compared on both scales
	Responses   int             `json:"responses"` // probe responses (per run) compared on both scales
	A           ResolutionScale `json:"a"`
	B           ResolutionScale `json:"b"`
	TiedChange  Est             `json:"tied_share_change"` // B − A
	ZeroChange  Est             `json:"zero_share_change"` // B − A
}

// ResolutionScale is one scale's shares.
type ResolutionScale struct {
	Scale         string `json:"scale"`
	TiedPairs     int    `json:"tied_pairs"`
	TiedShare     Est    `json:"tied_share"`
	ZeroResponses int    `json:"zero_responses"`
	ZeroShare     Est    `json:"zero_share"`
}

// Resolution compares the score resolution of one judge's answers on two
// scales (rowsA on scaleA, rowsB on scaleB; same dataset, bank and judge
// but for the scale). Fewer than MinContexts contexts with a pair scored on
// both scales is "too few".
func Resolution(ctx context.Context, rowsA, rowsB []model.ScoreRow, scaleA, scaleB string, opts Options) (*ResolutionReport, error) {
	opts = opts.withDefaults()
	ta, err := newDiagTable(rowsA, opts.ScoresFile)
	if err != nil {
		return nil, err
	}
	tb, err := newDiagTable(rowsB, opts.ScoresFile)
	if err != nil {
		return nil, err
	}
	rep := &ResolutionReport{MinContexts: opts.MinContexts, Bootstrap: opts.Bootstrap, Seed: opts.Seed,
		A: ResolutionScale{Scale: scaleA}, B: ResolutionScale{Scale: scaleB}}
	rs := newResolution(ta, tb)
	rep.Runs = len(rs.runs)
	ctxB := map[string]int{}
	for i, c := range tb.ctxs {
		ctxB[c] = i
	}
	used := 0
	seenCand := 0
	for ca, cid := range ta.ctxs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cb, ok := ctxB[cid]
		if !ok || rs.s0a == nil || rs.s0b == nil {
			continue
		}
		pairs, cands := rs.addContext(ca, cb)
		seenCand += cands
		if pairs > 0 {
			used++
		}
	}
	rep.Contexts, rep.Candidates = used, seenCand
	rs.estimate(rep, opts)
	return rep, nil
}

// resolution holds the runs, probes and Q statistics (tied pairs, zero
// responses, per scale) that two score tables of the same candidates
// share.
type resolution struct {
	ta, tb                     *diagTable
	runs                       []runPair // runs common to both, by label
	cols                       []string  // attribute and context probes common to both, name order
	qb                         *qBoot
	tiedA, tiedB, zeroA, zeroB int           // stat indices in qb
	s0a, s0b                   [][][]float64 // the baseline scores of each table
}

type runPair struct{ a, b int }

// newResolution finds the runs and probes common to ta and tb.
func newResolution(ta, tb *diagTable) *resolution {
	// Runs and candidates common to both, by label and id.
	runB := map[string]int{}
	for i, r := range tb.runs {
		runB[r] = i
	}
	var runs []runPair
	for i, r := range ta.runs {
		if j, ok := runB[r]; ok {
			runs = append(runs, runPair{i, j})
		}
	}
	cols := map[string]bool{}
	for p := range ta.score {
		if kind, _, _, err := model.ParseProbe(p); err == nil && (kind == model.ProbeAttr || kind == model.ProbeContext) && tb.has(p) {
			cols[p] = true
		}
	}
	colList := make([]string, 0, len(cols))
	for _, p := range ta.attributesAndCols() {
		if cols[p] {
			colList = append(colList, p)
		}
	}
	qb := newQBoot(len(ta.ctxs))
	rs := &resolution{ta: ta, tb: tb, runs: runs, cols: colList, qb: qb}
	rs.tiedA, rs.tiedB, rs.zeroA, rs.zeroB = qb.stat(), qb.stat(), qb.stat(), qb.stat()
	rs.s0a, rs.s0b = ta.score[model.ProbeBaseline], tb.score[model.ProbeBaseline]
	return rs
}

// both is a candidate present in both tables: its index in each.
type both struct{ a, b int }

// addContext adds the pairs and responses of context ca of table A (cb of
// B) to the statistics and returns its candidate pairs and the candidates
// scored on both scales in some run.
func (rs *resolution) addContext(ca, cb int) (pairs, cands int) {
	ta, tb := rs.ta, rs.tb
	candB := map[string]int{}
	for i, id := range tb.cands[cb] {
		candB[id] = i
	}
	var cs []both
	for i, id := range ta.cands[ca] {
		if j, ok := candB[id]; ok {
			cs = append(cs, both{i, j})
		}
	}
	anyCand := map[int]bool{}
	for _, rp := range rs.runs {
		pairs += rs.addRun(ca, cb, rp, cs, anyCand)
	}
	qb := rs.qb
	qb.den[rs.tiedA][ca] += float64(pairs)
	qb.den[rs.tiedB][ca] += float64(pairs)
	return pairs, len(anyCand)
}

// addRun adds one run's tied pairs and zero responses of the candidates
// cs of context ca (cb), marking in anyCand those it scored on both
// scales; it returns the run's candidate pairs.
func (rs *resolution) addRun(ca, cb int, rp runPair, cs []both, anyCand map[int]bool) (pairs int) {
	ta, tb, qb, s0a, s0b := rs.ta, rs.tb, rs.qb, rs.s0a, rs.s0b
	tiedA, tiedB, zeroA, zeroB := rs.tiedA, rs.tiedB, rs.zeroA, rs.zeroB
	var in []both
	for _, c := range cs {
		if isNum(s0a[ca][c.a][rp.a]) && isNum(s0b[cb][c.b][rp.b]) {
			in = append(in, c)
			anyCand[c.a] = true
		}
	}
	for x := 0; x < len(in); x++ {
		for y := x + 1; y < len(in); y++ {
			pairs++
			if s0a[ca][in[x].a][rp.a] == s0a[ca][in[y].a][rp.a] {
				qb.num[tiedA][ca]++
			}
			if s0b[cb][in[x].b][rp.b] == s0b[cb][in[y].b][rp.b] {
				qb.num[tiedB][ca]++
			}
		}
	}
	for _, p := range rs.cols {
		pa, pb := ta.score[p], tb.score[p]
		for _, c := range in {
			va, vb := pa[ca][c.a][rp.a], pb[cb][c.b][rp.b]
			if !isNum(va) || !isNum(vb) {
				continue
			}
			qb.den[zeroA][ca]++
			qb.den[zeroB][ca]++
			if va == s0a[ca][c.a][rp.a] {
				qb.num[zeroA][ca]++
			}
			if vb == s0b[cb][c.b][rp.b] {
				qb.num[zeroB][ca]++
			}
		}
	}
	return pairs
}

// estimate sets the report's counts and, with enough contexts, the
// shares with their context-bootstrap intervals.
func (rs *resolution) estimate(rep *ResolutionReport, opts Options) {
	qb, used := rs.qb, rep.Contexts
	tiedA, tiedB, zeroA, zeroB := rs.tiedA, rs.tiedB, rs.zeroA, rs.zeroB
	sum := func(x []float64) int {
		s := 0.0
		for _, v := range x {
			s += v
		}
		return int(s)
	}
	rep.Pairs, rep.Responses = sum(qb.den[tiedA]), sum(qb.den[zeroA])
	rep.A.TiedPairs, rep.B.TiedPairs = sum(qb.num[tiedA]), sum(qb.num[tiedB])
	rep.A.ZeroResponses, rep.B.ZeroResponses = sum(qb.num[zeroA]), sum(qb.num[zeroB])
	if rep.TooFew = calib.TooFew(used, opts.MinContexts, "%d contexts with a candidate pair scored on both scales in the same run; needs %d"); rep.TooFew != "" {
		nan := nanEst()
		rep.A.TiedShare, rep.B.TiedShare, rep.TiedChange, rep.A.ZeroShare, rep.B.ZeroShare, rep.ZeroChange = nan, nan, nan, nan, nan, nan
		return
	}
	derive := func(q []float64) []float64 {
		return []float64{q[tiedA], q[tiedB], q[tiedB] - q[tiedA], q[zeroA], q[zeroB], q[zeroB] - q[zeroA]}
	}
	point := derive(qb.q())
	ci := qb.intervals(derive, len(point), opts.Bootstrap, opts.Seed)
	rep.A.TiedShare, rep.B.TiedShare, rep.TiedChange = Est{point[0], ci[0]}, Est{point[1], ci[1]}, Est{point[2], ci[2]}
	rep.A.ZeroShare, rep.B.ZeroShare, rep.ZeroChange = Est{point[3], ci[3]}, Est{point[4], ci[4]}, Est{point[5], ci[5]}
}

func isNum(x float64) bool { return x == x }

// attributesAndCols lists the table's probes in name order.
func (t *diagTable) attributesAndCols() []string {
	out := make([]string, 0, len(t.score))
	for p := range t.score {
		out = append(out, p)
	}
	sortStrings(out)
	return out
}

func sortStrings(s []string) { slices.Sort(s) }
