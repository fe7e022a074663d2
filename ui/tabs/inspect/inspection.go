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
	"github.com/prism-eval/prism/ui/jobs"
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
// (answers is the version of key's answers, recorded for the stale
// mark), with rep (the Fit tab's report on the same answers, or nil) for
// β. d, when not nil, is the design rep was fitted on, unchanged since:
// it is used read-only instead of reading the answers again.
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
		if d, ins.NotInFit = readDesign(ctx, st, key); d == nil {
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
	ins.S0, ins.Human, ins.N = d.S0[r], d.Human[r], hi-lo
	beta := ins.foldBeta(rep, d)
	ins.setTerms(d, beta, r)
	ins.setRanks(d, beta, r, lo, hi)
	return ins, nil
}

// readDesign is the design of key's answers (they changed since the fit,
// or there is none), or nil and why the candidate is not in a fit.
func readDesign(ctx context.Context, st *store.Store, key study.Key) (*calib.Design, string) {
	in, err := jobs.ReadStudy(ctx, st, key, "inspecting")
	if err != nil {
		return nil, "no answers of judge " + key.Judge + " under this bank version"
	}
	d, _, err := calib.BuildDesign(in.Rows, in.Labels, calib.BuildOptions{})
	if err != nil {
		return nil, "the answers do not make a design: " + err.Error()
	}
	return d, ""
}

// foldBeta is PRISM's β (in d's column order) of the fold of rep whose
// test contexts hold the inspected context, which it records; nil
// without a fit.
func (ins *Inspection) foldBeta(rep *calib.Report, d *calib.Design) []float64 {
	if rep == nil {
		return nil
	}
	for _, f := range rep.Folds {
		if slices.Contains(f.TestContexts, ins.Context) {
			ins.Fold = f.Fold
			beta := make([]float64, d.Q())
			for j, col := range d.Columns {
				beta[j] = f.PRISM.Beta[col]
			}
			return beta
		}
	}
	return nil
}

// term is column j's share of row's correction, J̃β; NaN without β.
func term(d *calib.Design, beta []float64, row, j int) float64 {
	if beta == nil {
		return math.NaN()
	}
	return d.JC[row*d.Q()+j] * beta[j]
}

// setTerms sets each attribute's and context column's term of design
// row r.
func (ins *Inspection) setTerms(d *calib.Design, beta []float64, r int) {
	q := d.Q()
	ins.CtxTerms = map[string]float64{}
	for j, col := range d.Columns {
		attr, sign, ok := strings.Cut(col, ":")
		switch {
		case attr == "ctx" || !ok:
			ins.CtxTerms[col] = term(d, beta, r, j)
		case sign == "+":
			ins.Attrs = append(ins.Attrs, AttrTerm{Attr: attr, DeltaP: d.J[r*q+j], SPlus: d.S0[r] + d.J[r*q+j],
				Term: term(d, beta, r, j), BetaP: betaOr(beta, j)})
		case sign == "-":
			a := &ins.Attrs[len(ins.Attrs)-1] // ATTR:- follows ATTR:+ (calib.Design)
			a.DeltaM, a.SMinus, a.BetaM = d.J[r*q+j], d.S0[r]-d.J[r*q+j], betaOr(beta, j)
			a.Term += term(d, beta, r, j)
		}
	}
}

// setRanks sets the ranks of row r among its context's rows [lo, hi):
// by the labels, by s0 and, with β, by ŷ, which it records.
func (ins *Inspection) setRanks(d *calib.Design, beta []float64, r, lo, hi int) {
	ins.RankHuman = MidRankDesc(d.Human[lo:hi], r-lo)
	ins.RankBefore = MidRankDesc(d.S0[lo:hi], r-lo)
	if beta == nil {
		return
	}
	// ŷ = s0 − Σ_j J̃_j β_j, summed in column order and then
	// subtracted, exactly as calib predicts (docs/protocol.md §4), so
	// that ties and ranks here are calib's.
	after := make([]float64, hi-lo)
	for i := range after {
		var dot float64
		for j := range d.Q() {
			dot += term(d, beta, lo+i, j)
		}
		after[i] = d.S0[lo+i] - dot
	}
	ins.Corrected = after[r-lo]
	ins.RankAfter = MidRankDesc(after, r-lo)
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
