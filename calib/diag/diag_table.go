package diag

import (
	"fmt"
	"maps"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/prism-eval/prism/calib"

	"github.com/prism-eval/prism/model"
)

// diagTable holds a study's scores for the wording and joint diagnostics
// (docs/protocol.md §15): s(x; p) per context, candidate, probe and run,
// the mean of the answered wordings of p in that run (NaN: none).
// Contexts and candidates are sorted by id, runs by label.
type diagTable struct {
	runs  []string
	ctxs  []string
	cands [][]string
	score map[string][][][]float64 // probe → [context][candidate][run]
}

// newDiagTable tabulates rows; it fails, naming the row, on a probe name
// model.ParseProbe refuses or a score model.CheckNumber refuses. Missing
// rows and rubric ratings are skipped. Sums run in row order, and a
// cell's wording means are added in wording-label order, so equal rows
// give bitwise-equal tables.
func newDiagTable(rows []model.ScoreRow, file string) (*diagTable, error) {
	type candKey struct{ ctx, cand string }
	keep := make([]bool, len(rows))
	probeSet, runSet, wordSet := map[string]bool{}, map[string]bool{}, map[string]bool{}
	ctxCands := map[string]map[string]bool{}
	checked := map[string]bool{}
	for i := range rows {
		r := &rows[i]
		ok, seen := checked[r.Probe]
		if !seen {
			kind, _, _, err := model.ParseProbe(r.Probe)
			if err != nil {
				return nil, fmt.Errorf("%s: field \"probe\": %v", calib.At(file, r.Line), err)
			}
			ok = kind != model.ProbeRubric
			checked[r.Probe] = ok
		}
		if !ok || r.Missing {
			continue
		}
		if err := model.CheckNumber(r.Score); err != nil {
			return nil, fmt.Errorf("%s: field \"score\": %v", calib.At(file, r.Line), err)
		}
		keep[i] = true
		probeSet[r.Probe], runSet[r.Run], wordSet[r.Wording] = true, true, true
		cs := ctxCands[r.Context]
		if cs == nil {
			cs = map[string]bool{}
			ctxCands[r.Context] = cs
		}
		cs[r.Candidate] = true
	}
	t := &diagTable{runs: slices.Sorted(maps.Keys(runSet)), ctxs: slices.Sorted(maps.Keys(ctxCands)), score: map[string][][][]float64{}}
	index := func(ss []string) map[string]int {
		m := make(map[string]int, len(ss))
		for i, s := range ss {
			m[s] = i
		}
		return m
	}
	words := slices.Sorted(maps.Keys(wordSet))
	probes := slices.Sorted(maps.Keys(probeSet))
	runIdx, wordIdx, probeIdx := index(t.runs), index(words), index(probes)
	// flat: candidate number (over all contexts) → its context and index.
	type place struct{ ctx, cand int }
	var places []place
	flat := map[candKey]int{}
	for ci, c := range t.ctxs {
		cs := slices.Sorted(maps.Keys(ctxCands[c]))
		for k, id := range cs {
			flat[candKey{c, id}] = len(places)
			places = append(places, place{ci, k})
		}
		t.cands = append(t.cands, cs)
	}
	R, W, N := len(t.runs), len(words), len(places)
	sum := make([][]float64, len(probes)) // [probe][(cand·R + run)·W + wording]
	cnt := make([][]int32, len(probes))
	var last candKey
	lastFlat := -1
	for i := range rows {
		if !keep[i] {
			continue
		}
		r := &rows[i]
		if k := (candKey{r.Context, r.Candidate}); lastFlat < 0 || k != last {
			last, lastFlat = k, flat[k]
		}
		p := probeIdx[r.Probe]
		if sum[p] == nil {
			sum[p], cnt[p] = make([]float64, N*R*W), make([]int32, N*R*W)
		}
		j := (lastFlat*R+runIdx[r.Run])*W + wordIdx[r.Wording]
		sum[p][j] += r.Score
		cnt[p][j]++
	}
	for p, name := range probes {
		if sum[p] == nil {
			continue
		}
		m := make([][][]float64, len(t.ctxs))
		for ci := range m {
			m[ci] = make([][]float64, len(t.cands[ci]))
		}
		for f, pl := range places {
			v := make([]float64, R)
			for run := 0; run < R; run++ {
				var ws float64
				n := 0
				for w := 0; w < W; w++ {
					j := (f*R+run)*W + w
					if cnt[p][j] > 0 {
						ws += sum[p][j] / float64(cnt[p][j])
						n++
					}
				}
				v[run] = math.NaN()
				if n > 0 {
					v[run] = ws / float64(n)
				}
			}
			m[pl.ctx][pl.cand] = v
		}
		t.score[name] = m
	}
	return t, nil
}

// has reports whether any score of probe is present.
func (t *diagTable) has(probe string) bool { return t.score[probe] != nil }

// term is one probe's coefficient in a linear contrast of scores.
type term struct {
	probe string
	w     float64
}

// centered returns, for one context, the candidates that have every probe
// in every run (usable), and per probe the scores of those candidates
// centered within the context in each run: [probe][usable i][run].
func (t *diagTable) centered(c int, probes []string) (usable []int, v map[string][][]float64) {
	R := len(t.runs)
	for i := range t.cands[c] {
		ok := true
		for _, p := range probes {
			m := t.score[p]
			for r := 0; ok && r < R; r++ {
				ok = m != nil && !math.IsNaN(m[c][i][r])
			}
		}
		if ok {
			usable = append(usable, i)
		}
	}
	if len(usable) < 2 {
		return nil, nil
	}
	v = make(map[string][][]float64, len(probes))
	for _, p := range probes {
		rows := make([][]float64, len(usable))
		for k, i := range usable {
			rows[k] = slices.Clone(t.score[p][c][i])
		}
		for r := 0; r < R; r++ {
			var s float64
			for k := range rows {
				s += rows[k][r]
			}
			mean := s / float64(len(rows))
			for k := range rows {
				rows[k][r] -= mean
			}
		}
		v[p] = rows
	}
	return usable, v
}

// ctxScores are one usable context's centered scores: context c, its n
// usable candidates and, per probe, their scores [usable i][run].
type ctxScores struct {
	c int
	n int
	v map[string][][]float64
}

// usable returns the contexts with 2 or more candidates scored under every
// probe in every run (centered), in context order, and the number of
// those candidates summed over them.
func (t *diagTable) usable(probes []string) (cds []ctxScores, candidates int) {
	for c := range t.ctxs {
		if u, v := t.centered(c, probes); u != nil {
			cds = append(cds, ctxScores{c, len(u), v})
			candidates += len(u)
		}
	}
	return cds, candidates
}

// eval is contrast u of usable candidate k in run r.
func eval(v map[string][][]float64, u []term, k, r int) float64 {
	var s float64
	for _, x := range u {
		s += x.w * v[x.probe][k][r]
	}
	return s
}

// qSums are one context's parts of Q(U,V) (docs/protocol.md §8):
// num = Σ_i Σ_{r≠r′} U_i^(r) V_i^(r′) and den = n_c·R(R−1).
func qSums(v map[string][][]float64, u, w []term, n, R int) (num, den float64) {
	for k := 0; k < n; k++ {
		var su, sw, suw float64
		for r := 0; r < R; r++ {
			a, b := eval(v, u, k, r), eval(v, w, k, r)
			su += a
			sw += b
			suw += a * b
		}
		num += su*sw - suw
	}
	return num, float64(n * R * (R - 1))
}

// qBoot holds named Q statistics by context, so that each Q is
// Σ_c num/Σ_c den over all contexts or over a context-bootstrap draw.
type qBoot struct {
	nctx     int
	num, den [][]float64 // [stat][context]
}

func newQBoot(nctx int) *qBoot { return &qBoot{nctx: nctx} }

// addQ adds the parts of Q(U,V) (qSums) of each usable context to
// statistic j, in context order.
func (b *qBoot) addQ(j int, cds []ctxScores, u, w []term, R int) {
	for _, cd := range cds {
		n, d := qSums(cd.v, u, w, cd.n, R)
		b.num[j][cd.c] += n
		b.den[j][cd.c] += d
	}
}

// stat adds a statistic and returns its index.
func (b *qBoot) stat() int {
	b.num = append(b.num, make([]float64, b.nctx))
	b.den = append(b.den, make([]float64, b.nctx))
	return len(b.num) - 1
}

// q returns every statistic's Q over all contexts (NaN where den is 0).
func (b *qBoot) q() []float64 {
	out := make([]float64, len(b.num))
	for j := range b.num {
		var n, d float64
		for c := 0; c < b.nctx; c++ {
			n += b.num[j][c]
			d += b.den[j][c]
		}
		out[j] = calib.Ratio(n, d)
	}
	return out
}

// estimates returns the values derive makes of every statistic's Q over
// all contexts, each with its 95% context-bootstrap interval (intervals,
// B resamples seeded by seed), one per call in derive's order.
func (b *qBoot) estimates(derive func(q []float64) []float64, B int, seed uint64) func() Est {
	point := derive(b.q())
	ci := b.intervals(derive, len(point), B, seed)
	i := 0
	return func() Est { e := Est{point[i], ci[i]}; i++; return e }
}

// intervals returns percentile 95% intervals of each quantity derive
// computes from the Q statistics, over B context-bootstrap resamples drawn
// as PairedBootstrap draws them (i = ⌊x·n/2⁶⁴⌋, x = Uint64() of
// rand.NewPCG(seed, 1)). Resamples where a quantity is NaN are left out of
// its interval; an interval with none is NaN.
func (b *qBoot) intervals(derive func(q []float64) []float64, nq, B int, seed uint64) [][2]float64 {
	out := make([][2]float64, nq)
	for i := range out {
		out[i] = [2]float64{math.NaN(), math.NaN()}
	}
	if b.nctx == 0 || B < 1 {
		return out
	}
	draws := make([][]float64, nq)
	ns, ds := make([]float64, len(b.num)), make([]float64, len(b.num))
	q := make([]float64, len(b.num))
	g := rand.NewPCG(seed, 1)
	for it := 0; it < B; it++ {
		clear(ns)
		clear(ds)
		for k := 0; k < b.nctx; k++ {
			hi, _ := bits.Mul64(g.Uint64(), uint64(b.nctx))
			c := int(hi)
			for j := range ns {
				ns[j] += b.num[j][c]
				ds[j] += b.den[j][c]
			}
		}
		for j := range q {
			q[j] = calib.Ratio(ns[j], ds[j])
		}
		for i, x := range derive(q) {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				draws[i] = append(draws[i], x)
			}
		}
	}
	for i, d := range draws {
		if len(d) > 0 {
			out[i] = calib.PercentileInterval(d)
		}
	}
	return out
}

// reproRMS is sqrt(max(Q, 0)), NaN when Q is.
func reproRMSOf(q float64) float64 {
	if math.IsNaN(q) {
		return q
	}
	return math.Sqrt(math.Max(q, 0))
}

func nanFloat() float64 { return math.NaN() }

func cmpString(a, b string) int { return strings.Compare(a, b) }

// tooFewRuns is the "too few" reason of a diagnostic computed from Q,
// which needs MinRuns runs: one text for every such diagnostic ("" with
// enough runs).
func tooFewRuns(runs int) string {
	return calib.TooFew(runs, MinRuns, "%d run: Q needs at least %d (prism diagnose --repeats 2, or prism run --repeats 2)")
}
