package inspect

import (
	"context"
	"math"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/analysis"
)

// The candidate inspector's data: one candidate's scores from the design
// of the fit (after averaging and imputation), its judge replies, and the
// PRISM correction of the outer fold where its context was tested.

// AttrTerm is one attribute of an inspected candidate. Delta+ = s+ − s0
// and Delta− = s0 − s− (docs/protocol.md §2); Term is the attribute's share of
// the correction, (CΔ+)β+ + (CΔ−)β− with C the centering in the context, so
// that the corrected score is s0 − Σ Term.
type AttrTerm struct {
	Attr               string
	SPlus, SMinus      float64
	DeltaP, DeltaM     float64
	BetaP, BetaM, Term float64
}

// Inspection is everything the Inspect tab shows of one candidate.
type Inspection struct {
	Key           study.Key
	Answers       int  // the version of Key's answers when it was read
	Fitted        bool // β came from a fit of Key's answers
	Context, Cand string
	Source, Text  string
	Human, S0     float64
	Attrs         []AttrTerm
	CtxTerms      map[string]float64 // ctx:NAME column → its term
	Fold          int                // 1-based outer fold of the context; 0 without a fit
	Corrected     float64            // PRISM ŷ = s0 − J̃β; NaN without a fit
	N             int                // candidates of the context in the fit
	RankHuman     float64            // mid-ranks, 1 = highest
	RankBefore    float64            // by s0
	RankAfter     float64            // by ŷ; NaN without a fit
	Replies       []store.Reply
	NotInFit      string // why the candidate has no design row, or ""
}

// doneMsg carries a finished inspection.
type doneMsg struct {
	gen int
	ins *Inspection
	err error
}

// inspectCmd inspects candidate cand of context c on key's answers
// (answers is the version of key's answers, recorded for the stale mark), with rep
// (the Fit tab's report on the same answers, or nil) for β. in, when
// not nil, is the input rep was fitted on, unchanged since: it is used
// read-only instead of reading the answers again.
func inspectCmd(ctx context.Context, st *store.Store, key study.Key, answers int, c *model.Context, cand *model.Candidate, rep *calib.Report, d *calib.Design, gen int) tea.Cmd {
	return func() tea.Msg {
		ins, err := inspect(ctx, st, key, c, cand, rep, d)
		if ins != nil {
			ins.Answers = answers
		}
		return doneMsg{gen: gen, ins: ins, err: err}
	}
}

func inspect(ctx context.Context, st *store.Store, key study.Key, c *model.Context, cand *model.Candidate, rep *calib.Report, d *calib.Design) (*Inspection, error) {
	ins := &Inspection{Key: key, Fitted: rep != nil, Context: c.ID, Cand: cand.ID, Source: c.Source, Text: cand.Text,
		Human: cand.Human, S0: math.NaN(), Corrected: math.NaN(), RankAfter: math.NaN(), RankBefore: math.NaN(), RankHuman: math.NaN()}
	var err error
	if ins.Replies, err = st.Replies(ctx, key.Dataset, key.Judge, key.BankHash, c.ID, cand.ID); err != nil {
		return nil, err
	}
	if d == nil {
		in, err := analysis.ReadInput(ctx, st, key, "inspecting")
		if err != nil {
			ins.NotInFit = "no answers of judge " + key.Judge + " under this bank version"
			return ins, nil
		}
		if d, _, err = calib.BuildDesign(in.Rows, in.Labels, calib.BuildOptions{}); err != nil {
			ins.NotInFit = "the answers do not make a design: " + err.Error()
			return ins, nil
		}
	}
	ci := slices.Index(d.Contexts, c.ID)
	if ci < 0 {
		ins.NotInFit = "its context is not in the fit (fewer than two labelled, answered candidates)"
		return ins, nil
	}
	lo, hi := d.Off[ci], d.Off[ci+1]
	r := slices.Index(d.Candidates[ci], cand.ID)
	if r < 0 {
		ins.NotInFit = "the candidate has no label or no answers"
		return ins, nil
	}
	r += lo
	q := d.Q()
	ins.S0, ins.Human, ins.N = d.S0[r], d.Human[r], hi-lo

	// β of the fold whose test contexts hold this context.
	var beta []float64
	if rep != nil {
		for _, f := range rep.Folds {
			if slices.Contains(f.TestContexts, c.ID) {
				ins.Fold = f.Fold
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
	ins.CtxTerms = map[string]float64{}
	for j, col := range d.Columns {
		attr, sign, ok := strings.Cut(col, ":")
		switch {
		case attr == "ctx" || !ok:
			ins.CtxTerms[col] = term(r, j)
		case sign == "+":
			ins.Attrs = append(ins.Attrs, AttrTerm{Attr: attr, DeltaP: d.J[r*q+j], SPlus: d.S0[r] + d.J[r*q+j],
				Term: term(r, j), BetaP: betaOr(beta, j)})
		case sign == "-":
			a := &ins.Attrs[len(ins.Attrs)-1] // ATTR:- follows ATTR:+ (calib.Design)
			a.DeltaM, a.SMinus, a.BetaM = d.J[r*q+j], d.S0[r]-d.J[r*q+j], betaOr(beta, j)
			a.Term += term(r, j)
		}
	}
	before := d.S0[lo:hi]
	ins.RankHuman = MidRankDesc(d.Human[lo:hi], r-lo)
	ins.RankBefore = MidRankDesc(before, r-lo)
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
		ins.Corrected = after[r-lo]
		ins.RankAfter = MidRankDesc(after, r-lo)
	}
	return ins, nil
}

func betaOr(beta []float64, j int) float64 {
	if beta == nil {
		return math.NaN()
	}
	return beta[j]
}

// MidRankDesc is the rank of vals[i] among vals, 1 for the highest, ties
// sharing the mean of their ranks: 1 + #{v > vals[i]} + #{v = vals[i], other}/2.
// It panics if i is out of range.
func MidRankDesc(vals []float64, i int) float64 {
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
