package score

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// budgetScoring is what prism score --budget did: the stages, the
// requests the policy spent and the calls actually sent.
type budgetScoring struct {
	stages    []string // "probe: N candidates"
	requests  int      // requests of the stage plans: what the policy spent
	sent      int      // of those, sent to the judge (the rest were stored already or cached)
	policy    float64  // the policy's own count of calls (Policy.Calls, BaseCalls)
	filled    int      // probe cells filled by the policy's regression
	cells     int      // probe cells in all
	cands     int
	fullCalls float64 // calls per candidate of the full calibrator study
}

func (b *budgetScoring) notes(cal *calib.Calibrator, budget float64) []string {
	n := float64(max(b.cands, 1))
	return []string{
		fmt.Sprintf("budget: policy τ %g, cap %g calls per candidate; stages: %s", cal.Policy.Tau, budget, strings.Join(b.stages, ", ")),
		fmt.Sprintf("budget: the policy spent %d requests (%.2f per candidate; the full study %.4g); %d sent now, %d stored before; policy count %.4g",
			b.requests, float64(b.requests)/n, b.fullCalls, b.sent, b.requests-b.sent, b.policy),
		fmt.Sprintf("budget: %d of %d probe cells filled by the policy's regression on the asked ones (docs/protocol.md §16)", b.filled, b.cells),
	}
}

// staged follows the calibrator's policy on the dataset (docs/budget.md):
// the baseline of every candidate, then one probe column per stage for the
// candidates the policy keeps asking, each stage a plan of the same study
// sent through the engine. It returns one row per candidate and score
// column (the asked answers' means and the policy's fills) and the
// dataset's labels.
func (s *scoreWorkspace) staged(ctx context.Context, st *store.Store, dsName string, spec engine.Spec) ([]model.ScoreRow, []model.Label, *budgetScoring, error) {
	pol := s.cal.Policy
	d, rev, err := st.DatasetAt(ctx, dsName)
	if err != nil {
		return nil, nil, nil, err
	}
	spec.Dataset, spec.DatasetRev = d, rev
	bs := &budgetScoring{fullCalls: pol.BaseCalls}
	for _, c := range pol.Calls {
		bs.fullCalls += c
	}
	stage := func(probe string, keep map[string][]string) (map[[3]string]float64, error) {
		plan, err := engine.PlanStage(ctx, st, spec, []string{probe}, keep)
		if err != nil || plan == nil {
			return nil, err
		}
		n := 0
		for _, ids := range keep {
			n += len(ids)
		}
		bs.stages = append(bs.stages, fmt.Sprintf("%s %d", probe, n))
		bs.requests += len(plan.Items)
		if plan.Estimate.Send+plan.Estimate.CacheHits > 0 {
			fmt.Fprintf(s.info, "budget stage %d (%s): %d candidates, %d requests, %d to send\n", len(bs.stages), probe, n, len(plan.Items), plan.Estimate.Send)
			sum, err := clikit.SendPlan(ctx, st, plan, s.info, s.stderr)
			bs.sent += sum.Sent
			if err != nil {
				return nil, err
			}
			if sum.Canceled {
				fmt.Fprintf(s.stderr, "interrupted: %d answers stored by this run; rerun the same command to resume:\n  prism score %s\n", sum.Stored, clikit.ShellJoin(s.args))
				return nil, fmt.Errorf("interrupted")
			}
		}
		return engine.StageValues(ctx, st, plan)
	}
	all := map[string][]string{}
	for _, c := range d.Contexts {
		for _, cand := range c.Candidates {
			all[c.ID] = append(all[c.ID], cand.ID)
		}
	}
	base, err := stage(model.ProbeBaseline, all)
	if err != nil {
		return nil, nil, nil, err
	}
	runs := make([]*calib.PolicyRun, len(d.Contexts))
	s0s := make([][]float64, len(d.Contexts))
	for g, c := range d.Contexts {
		s0 := make([]float64, len(c.Candidates))
		for i, cand := range c.Candidates {
			v := base[[3]string{c.ID, cand.ID, model.ProbeBaseline}]
			if math.IsNaN(v) {
				return nil, nil, nil, fmt.Errorf("%s/%s: every baseline call failed, so the policy cannot start; rerun the same command to retry", c.ID, cand.ID)
			}
			s0[i] = v
		}
		runs[g], s0s[g] = pol.Start(s0, s.budget), s0
		bs.cands += len(c.Candidates)
	}
	for {
		keep := map[string][]string{}
		who := make([][]int, len(runs))
		col := -1
		for g, r := range runs {
			c, w, ok := r.Next()
			if !ok {
				continue
			}
			col, who[g] = c, w
			for _, i := range w {
				keep[d.Contexts[g].ID] = append(keep[d.Contexts[g].ID], d.Contexts[g].Candidates[i].ID)
			}
		}
		if col < 0 {
			break
		}
		probe := pol.Columns[col]
		vals, err := stage(probe, keep)
		if err != nil {
			return nil, nil, nil, err
		}
		for g, w := range who {
			if w == nil {
				continue
			}
			v := make([]float64, len(w))
			for k, i := range w {
				v[k] = vals[[3]string{d.Contexts[g].ID, d.Contexts[g].Candidates[i].ID, probe}]
			}
			runs[g].Give(w, v)
		}
	}
	var rows []model.ScoreRow
	for g, c := range d.Contexts {
		_, calls := runs[g].Scores()
		for i, cand := range c.Candidates {
			rows = append(rows, model.ScoreRow{Context: c.ID, Candidate: cand.ID, Probe: model.ProbeBaseline, Score: s0s[g][i]})
			f := runs[g].Filled(i)
			asked := runs[g].Asked(i)
			for k, col := range pol.Columns {
				rows = append(rows, model.ScoreRow{Context: c.ID, Candidate: cand.ID, Probe: col, Score: f[k]})
			}
			bs.filled += len(pol.Columns) - asked
			bs.cells += len(pol.Columns)
			bs.policy += calls[i]
		}
	}
	_, labels, err := st.FitInput(ctx, dsName, spec.JudgeName, "")
	if err == nil && s.target != "" {
		labels, err = study.CriterionLabels(ctx, st, dsName, s.target)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return rows, labels, bs, nil
}

// acquireBudget is acquire under --budget: it prints what the policy may
// spend (the dry run stops there), then runs the stages on a writable
// workspace. ro is the read-only store acquire planned on; it is closed
// here.
func (s *scoreWorkspace) acquireBudget(ctx context.Context, ro *store.Store, path, dsName string, spec engine.Spec, full *engine.Plan,
	hasKey bool, key string, mismatches []string) (rows []model.ScoreRow, labels []model.Label, _ []string, done bool, err error) {
	pol := s.cal.Policy
	n := spec.Dataset.NumCandidates()
	most := int(math.Min(float64(len(full.Items)), math.Floor(s.budget)*float64(n)))
	fmt.Fprintf(s.info, "budget: the calibrator's policy (τ %g) asks the baseline of all %d candidates, then probes in the order %s while a candidate's order may still change, at most %g calls per candidate: at most %d of the full study's %d requests (%d answered already)\n",
		pol.Tau, n, strings.Join(pol.Columns, " "), s.budget, most, len(full.Items), full.Estimate.Answered)
	if send, err := s.spend.Check(budgetBound(full.Estimate, most), spec.Config.Backend, s.info, s.stderr); !send {
		return nil, nil, mismatches, err == nil, err
	}
	ro.Close()
	st, err := clikit.OpenWorkspace(ctx, path, false)
	if err != nil {
		return nil, nil, nil, false, err
	}
	defer st.Close()
	if hasKey {
		st.AddSecret(key)
	}
	rows, labels, bs, err := s.staged(ctx, st, dsName, spec)
	if err != nil {
		return nil, nil, nil, false, err
	}
	s.budgetDone = bs
	s.source = fmt.Sprintf("%s: dataset %s, judge %s (budgeted)", st.Path(), dsName, spec.JudgeName)
	return rows, labels, mismatches, false, nil
}

// budgetBound estimates the most a budgeted scoring may spend, for the
// spend check: the full study's estimate with its sends cut to the
// policy's cap of most requests, tokens and cost cut in proportion (the
// stages send a subset of the full study's pending requests).
func budgetBound(full engine.Estimate, most int) engine.Estimate {
	e := full
	if most >= e.Send || e.Send == 0 {
		return e
	}
	f := float64(most) / float64(e.Send)
	e.Send, e.Calls = most, int(math.Ceil(float64(e.Calls)*f))
	e.InputTokens = int64(math.Ceil(float64(e.InputTokens) * f))
	e.OutputTokens = int64(math.Ceil(float64(e.OutputTokens) * f))
	e.Cost *= f
	return e
}
