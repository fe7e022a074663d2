package engine

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// Staged acquisition (prism score --budget, docs/budget.md): a policy asks
// one probe of some candidates at a time, looks at the answers and
// decides whom to ask next. Each stage is an ordinary plan of the same
// study (same dataset name and revision, judge and bank hash) restricted
// to the stage's candidates and probe, run with Start like any other:
// answers already stored are not sent again, so a staged scoring that is
// interrupted resumes by running it again, and what it sends is exactly
// the stage plans' Sends.

// PlanStage plans the conditions of the probes (every wording, every run
// of spec.Repeats) for the candidates keep lists (context id → candidate
// ids) of spec.Dataset, as part of spec's study. It returns nil when keep
// names no candidate of the dataset.
func PlanStage(ctx context.Context, st *store.Store, spec Spec, probes []string, keep map[string][]string) (*Plan, error) {
	sub := SubDataset(spec.Dataset, keep)
	if sub.NumCandidates() == 0 {
		return nil, nil
	}
	if spec.DatasetRev == 0 {
		rev, err := st.DatasetRevision(ctx, spec.Dataset.Name)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		spec.DatasetRev = rev
	}
	spec.Dataset, spec.Probes = sub, probes
	return NewPlan(ctx, st, spec)
}

// SubDataset is d (same name, task and metric) with only the candidates
// keep lists, in d's order; contexts left without candidates are dropped.
func SubDataset(d *model.Dataset, keep map[string][]string) *model.Dataset {
	sub := *d
	sub.Contexts = nil
	for _, c := range d.Contexts {
		want := keep[c.ID]
		if len(want) == 0 {
			continue
		}
		in := make(map[string]bool, len(want))
		for _, id := range want {
			in[id] = true
		}
		cc := c
		cc.Candidates = nil
		for _, cand := range c.Candidates {
			if in[cand.ID] {
				cc.Candidates = append(cc.Candidates, cand)
			}
		}
		if len(cc.Candidates) > 0 {
			sub.Contexts = append(sub.Contexts, cc)
		}
	}
	return &sub
}

// StageValues reads the answers of a stage plan from the store: per
// candidate of the plan and per probe, the mean of its stored scores over
// the plan's wordings and runs, and NaN when none was answered with a
// score (every call failed). Keys are {context, candidate, probe}.
func StageValues(ctx context.Context, st *store.Store, p *Plan) (map[[3]string]float64, error) {
	rows, _, err := st.FitInput(ctx, p.Spec.Dataset.Name, p.Spec.JudgeName, p.BankHash)
	if err != nil {
		return nil, err
	}
	type acc struct {
		sum float64
		n   int
	}
	want := map[[3]string]*acc{}
	runs := map[string]bool{}
	for i := range p.Items {
		it := &p.Items[i]
		c := &p.Spec.Dataset.Contexts[it.Context]
		k := [3]string{c.ID, c.Candidates[it.Candidate].ID, p.probe(it)}
		if want[k] == nil {
			want[k] = &acc{}
		}
		runs[strconv.Itoa(int(it.Run))] = true
	}
	wordings := map[string]bool{}
	for _, ci := range p.planned {
		wordings[p.conds[ci].Probe+"\x00"+strconv.Itoa(p.conds[ci].Wording)] = true
	}
	for _, r := range rows {
		a := want[[3]string{r.Context, r.Candidate, r.Probe}]
		if a == nil || r.Missing || !runs[r.Run] || !wordings[r.Probe+"\x00"+r.Wording] {
			continue
		}
		a.sum += r.Score
		a.n++
	}
	out := make(map[[3]string]float64, len(want))
	for k, a := range want {
		if a.n == 0 {
			out[k] = math.NaN()
			continue
		}
		out[k] = a.sum / float64(a.n)
	}
	return out, nil
}
