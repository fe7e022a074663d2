package calib

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/prism-eval/prism/model"
)

// Finish scores the candidates added, with labels (may be nil) for the
// transfer check; the Applier is spent. The steps: keep the candidates
// that can be scored (complete), read the labels, group the contexts,
// align and impute their scores into a design, center it as the
// calibrator was fitted, evaluate the correction, rank within contexts
// and check the transfer to the labels.
func (a *Applier) Finish(labels []model.Label) (*Scored, error) {
	cands, err := a.complete()
	if err != nil {
		return nil, err
	}
	if err := a.readLabels(labels); err != nil {
		return nil, err
	}
	ctxs, byCtx, err := a.groupContexts(cands)
	if err != nil {
		return nil, err
	}
	d := a.align(ctxs, byCtx)
	oc, hc := a.center(d, len(ctxs))
	a.evaluate(d, oc, hc)
	a.rank(d, len(ctxs))
	out := a.out
	if out.Labelled > 0 {
		tr, note := a.c.transfer(out, d.Off, a.opts)
		out.Transfer = tr
		if note != "" {
			out.Warnings = append(out.Warnings, note)
		}
	}
	return out, nil
}

// complete returns the candidates to score: every one when each has a
// baseline and some probe score; otherwise an error naming the first
// incomplete ones, or, with SkipIncomplete, the rest with a warning.
func (a *Applier) complete() ([]*applyCand, error) {
	c, opts, sf, nc, out := a.c, a.opts, a.sf, a.nc, a.out
	cands, index := a.cands, a.index
	type cand = applyCand
	if len(cands) == 0 {
		return nil, fmt.Errorf("%s: no score rows", sf)
	}
	hasCol := make([]bool, nc)
	for _, cd := range cands {
		for k := range nc {
			hasCol[k] = hasCol[k] || cd.cnt[k] > 0
		}
	}
	if !hasCol[0] {
		return nil, fmt.Errorf("%s: field \"probe\": no %q rows; the calibrator starts every corrected score from the baseline s0", sf, model.ProbeBaseline)
	}
	var noBase, noProbe []*cand
	for _, cd := range cands {
		if cd.cnt[0] == 0 {
			noBase = append(noBase, cd)
			continue
		}
		any := false
		for k := 1; k < nc; k++ {
			any = any || cd.cnt[k] > 0
		}
		if !any {
			noProbe = append(noProbe, cd)
		}
	}
	describe := func(cs []*cand) string {
		cd := cs[0]
		s := fmt.Sprintf("candidate %q of context %q", cd.id, cd.ctx)
		if len(cs) > 1 {
			s += fmt.Sprintf(" and %d more", len(cs)-1)
		}
		return s
	}
	if opts.SkipIncomplete && len(noBase)+len(noProbe) > 0 {
		drop := map[*cand]bool{}
		for _, cd := range append(noBase, noProbe...) {
			drop[cd] = true
			delete(index, candKey{cd.ctx, cd.id})
		}
		cands = slices.DeleteFunc(cands, func(cd *cand) bool { return drop[cd] })
		out.Skipped += len(drop)
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s: left out %d candidates without a baseline score (%d) or without any probe score the calibrator reads (%d)", sf, len(drop), len(noBase), len(noProbe)))
		noBase, noProbe = nil, nil
	}
	switch {
	case len(noBase) > 0:
		return nil, fmt.Errorf("%s: field \"score\": %s %s no baseline score; the corrected score starts from s0 (acquire it, or leave the candidate out)",
			at(sf, noBase[0].line), describe(noBase), hasHave(len(noBase)))
	case len(noProbe) > 0:
		return nil, fmt.Errorf("%s: field \"score\": %s %s no score under any probe the calibrator reads (%s): nothing to correct with (acquire them, or leave the candidate out)",
			at(sf, noProbe[0].line), describe(noProbe), hasHave(len(noProbe)), strings.Join(c.ScoreColumns[1:], ", "))
	}
	return cands, nil
}

// readLabels checks the labels and gives each to its candidate, warning
// of labelled candidates without scores. A label is looked up among the
// candidates, not indexed itself: two maps of the labels were a tenth of
// prism score on an answered study.
func (a *Applier) readLabels(labels []model.Label) error {
	lf, index := a.lf, a.index
	unscored := map[candKey]int{} // labels of candidates without scores: their lines
	for _, l := range labels {
		if l.Context == "" || l.Candidate == "" {
			return fmt.Errorf("%s: field \"context\"/\"candidate\": empty id", at(lf, l.Line))
		}
		if err := model.CheckNumber(l.Human); err != nil {
			return fmt.Errorf("%s: field \"human\": %v", at(lf, l.Line), err)
		}
		k := candKey{l.Context, l.Candidate}
		first, dup := unscored[k]
		cd := index[k]
		if cd != nil {
			first, dup = cd.labelLine, cd.labelled
		}
		if dup {
			return fmt.Errorf("%s: field \"candidate\": duplicate label for context %q candidate %q (first on line %d)", at(lf, l.Line), l.Context, l.Candidate, first)
		}
		if cd == nil {
			unscored[k] = l.Line
			continue
		}
		cd.human, cd.labelled, cd.labelLine = l.Human, true, l.Line
	}
	if len(unscored) > 0 {
		a.out.Warnings = append(a.out.Warnings, fmt.Sprintf("%s: %d labelled candidates have no scores and are not scored", lf, len(unscored)))
	}
	return nil
}

// groupContexts groups the candidates by context, contexts in byte order.
// A within-context calibrator needs two candidates per context: with
// SkipIncomplete the others are left out, otherwise they are an error.
func (a *Applier) groupContexts(cands []*applyCand) ([]string, map[string][]*applyCand, error) {
	c, opts, sf, index, out := a.c, a.opts, a.sf, a.index, a.out
	type cand = applyCand
	byCtx := map[string][]*cand{}
	for _, cd := range cands {
		byCtx[cd.ctx] = append(byCtx[cd.ctx], cd)
	}
	ctxs := make([]string, 0, len(byCtx))
	for k := range byCtx {
		ctxs = append(ctxs, k)
	}
	slices.Sort(ctxs)
	if c.Centering == CenterWithinContext && opts.SkipIncomplete {
		single := 0
		ctxs = slices.DeleteFunc(ctxs, func(k string) bool {
			if len(byCtx[k]) < 2 {
				single++
				delete(index, candKey{k, byCtx[k][0].id})
				return true
			}
			return false
		})
		if single > 0 {
			out.Skipped += single
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: left out %d contexts with a single scorable candidate (a within-context calibrator needs two)", sf, single))
		}
		cands = cands[:0]
		for _, k := range ctxs {
			cands = append(cands, byCtx[k]...)
		}
		if len(cands) == 0 {
			return nil, nil, fmt.Errorf("%s: no context has two candidates with a baseline and a probe score", sf)
		}
	}
	if c.Centering == CenterWithinContext {
		for _, k := range ctxs {
			if cs := byCtx[k]; len(cs) < 2 {
				return nil, nil, fmt.Errorf("%s: field \"context\": context %q has one candidate (%q); a within-context calibrator centers each context's probe responses, which leaves nothing to correct with one candidate (score it with its context's other candidates, or use a calibrator fitted with --global)",
					at(sf, cs[0].line), k, cs[0].id)
			}
		}
	}
	return ctxs, byCtx, nil
}

// align builds the design of the scored candidates (contexts in order,
// candidates in byte order): each score column's mean over its rows, the
// calibrator's training mean for a column without one (imputed), the
// baseline s0 and the Jacobian J; and the output rows beside it.
func (a *Applier) align(ctxs []string, byCtx map[string][]*applyCand) *Design {
	c, nc, out := a.c, a.nc, a.out
	type cand = applyCand
	q, K := len(c.Columns), len(c.Attributes)
	n := 0
	for _, k := range ctxs {
		n += len(byCtx[k])
	}
	d := &Design{Columns: c.Columns, Attrs: c.Attributes, Off: make([]int, 1, len(ctxs)+1),
		S0: make([]float64, n), Human: make([]float64, n), V: make([]float64, n), YStar: make([]float64, n),
		J: make([]float64, n*q)}
	ordered := make([]*cand, 0, n)
	for _, k := range ctxs {
		cs := byCtx[k]
		slices.SortFunc(cs, func(a, b *cand) int { return strings.Compare(a.id, b.id) })
		ordered = append(ordered, cs...)
		d.Off = append(d.Off, len(ordered))
	}
	out.Rows = make([]ScoredRow, n)
	score := make([]float64, nc)
	for r, cd := range ordered {
		row := &out.Rows[r]
		row.Context, row.Candidate, row.Human = cd.ctx, cd.id, math.NaN()
		if cd.labelled {
			row.Human = cd.human
			out.Labelled++
		}
		for k := range nc {
			if cd.cnt[k] > 0 {
				score[k] = cd.sum[k] / float64(cd.cnt[k])
			} else {
				score[k] = c.Means[k]
				row.Imputed++
				out.Imputed[c.ScoreColumns[k]]++
			}
		}
		if row.Imputed > 0 {
			out.ImputedCandidates++
		}
		s0 := score[0]
		d.S0[r], row.Baseline = s0, s0
		j := d.J[r*q : (r+1)*q]
		// Half and Taylor read no context columns (their score columns
		// stop at the attributes): those stay 0 and unused.
		for k := 0; k < K; k++ {
			j[2*k] = score[1+2*k] - s0
			j[2*k+1] = s0 - score[2+2*k]
		}
		for col := 2 * K; col < q && 1+col < nc; col++ {
			j[col] = score[1+col] - s0
		}
		row.InSample = c.inTraining(cd.ctx, cd.id)
		if row.InSample {
			out.InSample++
		}
	}
	out.Contexts, out.Candidates = len(ctxs), n
	return d
}

// center sets d.JC and returns the centered one-sided (oc) and
// half-difference (hc) terms, within each of the nctx contexts or by the
// calibrator's global centering, as it was fitted.
func (a *Applier) center(d *Design, nctx int) (oc, hc []float64) {
	c := a.c
	q, K, n := len(c.Columns), len(c.Attributes), d.Rows()
	oc, hc = make([]float64, n*K), make([]float64, n*K)
	d.JC = slices.Clone(d.J)
	if c.Centering == CenterWithinContext {
		for g := range nctx {
			lo, hi := d.Off[g], d.Off[g+1]
			d.centerContext(lo, hi)
			d.centerOH(lo, hi, oc[lo*K:hi*K], hc[lo*K:hi*K])
		}
	} else {
		gc := c.GlobalCentering
		for r := 0; r < n; r++ {
			for col := 0; col < q; col++ {
				d.JC[r*q+col] = d.J[r*q+col] - gc.J[col]
			}
			j := d.J[r*q:]
			for k := 0; k < K; k++ {
				oc[r*K+k] = (j[2*k]+j[2*k+1])/2 - gc.O[k]
				hc[r*K+k] = (j[2*k] - j[2*k+1]) - gc.H[k]
			}
		}
	}
	return oc, hc
}

// evaluate sets every row's corrected score, its per-unit terms and,
// with HumanScale, its score on the human scale.
func (a *Applier) evaluate(d *Design, oc, hc []float64) {
	c, opts, out := a.c, a.opts, a.out
	m, _ := MethodOf(c.Method)
	q, K, n := len(c.Columns), len(c.Attributes), d.Rows()
	rl := c.rule()
	nu := len(out.Units)
	terms := make([]float64, n*nu)
	for r := range out.Rows {
		row := &out.Rows[r]
		jr, or, hr := d.JC[r*q:(r+1)*q], oc[r*K:(r+1)*K], hc[r*K:(r+1)*K]
		row.Corrected = rl.predict(row.Baseline, jr, or, hr)
		t := terms[r*nu : (r+1)*nu : (r+1)*nu]
		switch m {
		case PRISM, AlphaPRISM:
			for k := 0; k < K; k++ {
				t[k] = jr[2*k]*rl.beta[2*k] + jr[2*k+1]*rl.beta[2*k+1]
			}
			for col := 2 * K; col < q; col++ {
				t[K+col-2*K] = jr[col] * rl.beta[col]
			}
		case Half:
			for k := 0; k < K; k++ {
				t[k] = or[k] * rl.delta[k]
			}
		case Taylor:
			for k := 0; k < K; k++ {
				t[k] = or[k]*rl.delta[k] - hr[k]*rl.curv[k]
			}
		}
		row.Terms = t
		row.Scaled = math.NaN()
		if opts.HumanScale {
			row.Scaled = c.HumanScale.At(row.Corrected)
			if c.HumanScale.Extrapolates(row.Corrected) {
				out.Extrapolated++
			}
		}
	}
}

// rank sets the ranks within each context, 1 = highest, before and after
// the correction.
func (a *Applier) rank(d *Design, nctx int) {
	out := a.out
	maxN := 0
	for g := range nctx {
		maxN = max(maxN, d.Off[g+1]-d.Off[g])
	}
	x, rk, idx := make([]float64, maxN), make([]float64, maxN), make([]int, maxN)
	for g := range nctx {
		lo, hi := d.Off[g], d.Off[g+1]
		nn := hi - lo
		for pass := 0; pass < 2; pass++ {
			for i := lo; i < hi; i++ {
				if pass == 0 {
					x[i-lo] = out.Rows[i].Baseline
				} else {
					x[i-lo] = out.Rows[i].Corrected
				}
			}
			MidRanks(rk[:nn], x[:nn], idx[:nn])
			for i := lo; i < hi; i++ {
				desc := float64(nn+1) - rk[i-lo]
				if pass == 0 {
					out.Rows[i].RankBefore = desc
				} else {
					out.Rows[i].RankAfter = desc
				}
			}
		}
	}
}
