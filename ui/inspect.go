package ui

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// The candidate inspector's data: one candidate's scores from the design
// of the fit (after averaging and imputation), its judge replies, and the
// PRISM correction of the outer fold where its context was tested.

// attrTerm is one attribute of an inspected candidate. Delta+ = s+ − s0
// and Delta− = s0 − s− (docs/protocol.md §2); Term is the attribute's share of
// the correction, (CΔ+)β+ + (CΔ−)β− with C the centering in the context, so
// that the corrected score is s0 − Σ Term.
type attrTerm struct {
	Attr               string
	SPlus, SMinus      float64
	DeltaP, DeltaM     float64
	BetaP, BetaM, Term float64
}

// inspection is everything the Inspect tab shows of one candidate.
type inspection struct {
	key           studyKey
	answers       int  // App.versions.Of(key) when it was read
	fitted        bool // β came from a fit of key's answers
	context, cand string
	source, text  string
	human, s0     float64
	attrs         []attrTerm
	ctxTerms      map[string]float64 // ctx:NAME column → its term
	fold          int                // 1-based outer fold of the context; 0 without a fit
	corrected     float64            // PRISM ŷ = s0 − J̃β; NaN without a fit
	n             int                // candidates of the context in the fit
	rankHuman     float64            // mid-ranks, 1 = highest
	rankBefore    float64            // by s0
	rankAfter     float64            // by ŷ; NaN without a fit
	replies       []store.Reply
	notInFit      string // why the candidate has no design row, or ""
}

// inspectMsg carries a finished inspection.
type inspectMsg struct {
	gen int
	ins *inspection
	err error
}

// inspectCmd inspects candidate cand of context c on key's answers
// (answers is App.versions.Of(key), recorded for the stale mark), with rep
// (the Fit tab's report on the same answers, or nil) for β. in, when
// not nil, is the input rep was fitted on, unchanged since: it is used
// read-only instead of reading the answers again.
func inspectCmd(ctx context.Context, st *store.Store, key studyKey, answers int, c *model.Context, cand *model.Candidate, rep *calib.Report, d *calib.Design, gen int) tea.Cmd {
	return func() tea.Msg {
		ins, err := inspect(ctx, st, key, c, cand, rep, d)
		if ins != nil {
			ins.answers = answers
		}
		return inspectMsg{gen: gen, ins: ins, err: err}
	}
}

func inspect(ctx context.Context, st *store.Store, key studyKey, c *model.Context, cand *model.Candidate, rep *calib.Report, d *calib.Design) (*inspection, error) {
	ins := &inspection{key: key, fitted: rep != nil, context: c.ID, cand: cand.ID, source: c.Source, text: cand.Text,
		human: cand.Human, s0: math.NaN(), corrected: math.NaN(), rankAfter: math.NaN(), rankBefore: math.NaN(), rankHuman: math.NaN()}
	var err error
	if ins.replies, err = st.Replies(ctx, key.Dataset, key.Judge, key.BankHash, c.ID, cand.ID); err != nil {
		return nil, err
	}
	if d == nil {
		in, err := readStudyInput(ctx, st, key, "inspecting")
		if err != nil {
			ins.notInFit = "no answers of judge " + key.Judge + " under this bank version"
			return ins, nil
		}
		if d, _, err = calib.BuildDesign(in.rows, in.labels, calib.BuildOptions{}); err != nil {
			ins.notInFit = "the answers do not make a design: " + err.Error()
			return ins, nil
		}
	}
	ci := slices.Index(d.Contexts, c.ID)
	if ci < 0 {
		ins.notInFit = "its context is not in the fit (fewer than two labelled, answered candidates)"
		return ins, nil
	}
	lo, hi := d.Off[ci], d.Off[ci+1]
	r := slices.Index(d.Candidates[ci], cand.ID)
	if r < 0 {
		ins.notInFit = "the candidate has no label or no answers"
		return ins, nil
	}
	r += lo
	q := d.Q()
	ins.s0, ins.human, ins.n = d.S0[r], d.Human[r], hi-lo

	// β of the fold whose test contexts hold this context.
	var beta []float64
	if rep != nil {
		for _, f := range rep.Folds {
			if slices.Contains(f.TestContexts, c.ID) {
				ins.fold = f.Fold
				beta = make([]float64, q)
				for j, col := range d.Columns {
					beta[j] = f.PRISM.Beta[col]
				}
				break
			}
		}
	}
	term := func(row, j int) float64 {
		if beta == nil {
			return math.NaN()
		}
		return d.JC[row*q+j] * beta[j]
	}
	ins.ctxTerms = map[string]float64{}
	for j, col := range d.Columns {
		attr, sign, ok := strings.Cut(col, ":")
		switch {
		case attr == "ctx" || !ok:
			ins.ctxTerms[col] = term(r, j)
		case sign == "+":
			ins.attrs = append(ins.attrs, attrTerm{Attr: attr, DeltaP: d.J[r*q+j], SPlus: d.S0[r] + d.J[r*q+j],
				Term: term(r, j), BetaP: betaOr(beta, j)})
		case sign == "-":
			a := &ins.attrs[len(ins.attrs)-1] // ATTR:- follows ATTR:+ (calib.Design)
			a.DeltaM, a.SMinus, a.BetaM = d.J[r*q+j], d.S0[r]-d.J[r*q+j], betaOr(beta, j)
			a.Term += term(r, j)
		}
	}
	before := d.S0[lo:hi]
	ins.rankHuman = midRankDesc(d.Human[lo:hi], r-lo)
	ins.rankBefore = midRankDesc(before, r-lo)
	if beta != nil {
		// ŷ = s0 − Σ_j J̃_j β_j, summed in column order and then
		// subtracted, exactly as calib predicts (docs/protocol.md §4), so
		// that ties and ranks here are calib's.
		after := make([]float64, hi-lo)
		for i := range after {
			var dot float64
			for j := range q {
				dot += term(lo+i, j)
			}
			after[i] = d.S0[lo+i] - dot
		}
		ins.corrected = after[r-lo]
		ins.rankAfter = midRankDesc(after, r-lo)
	}
	return ins, nil
}

func betaOr(beta []float64, j int) float64 {
	if beta == nil {
		return math.NaN()
	}
	return beta[j]
}

// midRankDesc is the rank of vals[i] among vals, 1 for the highest, ties
// sharing the mean of their ranks: 1 + #{v > vals[i]} + #{v = vals[i], other}/2.
// It panics if i is out of range.
func midRankDesc(vals []float64, i int) float64 {
	above, ties := 0, 0
	for j, v := range vals {
		switch {
		case v > vals[i]:
			above++
		case v == vals[i] && j != i:
			ties++
		}
	}
	return 1 + float64(above) + float64(ties)/2
}

// rankText prints a mid-rank ("2", "2.5") of n, or "—".
func rankText(r float64, n int) string {
	if math.IsNaN(r) {
		return "—"
	}
	return fmt.Sprintf("%s/%d", strings.TrimSuffix(fmt.Sprintf("%.1f", r), ".0"), n)
}
