package selection

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib/budget"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/jobs"
)

// The Select tab's budget curve (docs/budget.md): budget.Evaluate
// on the stored answers of the current dataset, judge and bank version, as
// a job; budgetView draws it.

// budgetState is the Select tab's budget curve: the evaluation in
// flight, the last report, and whether the curve replaces the
// subset-size curve on the left.
type budgetState struct {
	jobs.State[*budget.Report]
	rep      *budget.Report
	warnings []string
	key      study.Key
	show     bool
}

// startBudget starts a budget evaluation of key's answers and returns
// the job at once.
func startBudget(ctx context.Context, st *store.Store, key study.Key, opts budget.Options) (*jobs.Job[*budget.Report], tea.Cmd) {
	return jobs.Start(ctx, key, func(ctx context.Context, _ func(int, int)) (*budget.Report, []string, error) {
		in, err := jobs.ReadStudy(ctx, st, key, "evaluating budgets on")
		if err != nil {
			return nil, nil, err
		}
		opts.ScoresFile, opts.LabelsFile = in.Source, in.Source
		rep, w, err := budget.Evaluate(ctx, in.Rows, in.Labels, opts)
		if err == nil {
			rep.Study = &in.Study
		}
		return rep, append(in.Warnings, w...), err
	})
}

// toggle shows or hides the curve; showing it evaluates the current
// answers when the curve on hand is of other answers (or there is none).
func (b *budgetState) toggle(svc Services, current study.Key) tea.Cmd {
	if b.show {
		b.show = false
		return nil
	}
	b.show = true
	if b.Job != nil || (b.rep != nil && b.key == current) {
		return nil
	}
	k, err := svc.RequireKey()
	if err != nil {
		b.Err = err
		return nil
	}
	j, cmd := startBudget(svc.Context(), svc.Store(), k, budget.DefaultOptions())
	b.Start(j)
	return cmd
}

// update handles the budget job's messages.
func (b *budgetState) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case jobs.StartedMsg[*budget.Report]:
		return msg.Follow(&b.State)
	case jobs.ProgressMsg[*budget.Report]:
		return msg.Apply(&b.State)
	case jobs.DoneMsg[*budget.Report]:
		if j := msg.Job; b.Finish(j) {
			b.rep, b.warnings, b.key = j.Res, j.Warnings, j.Key
		}
	}
	return nil
}
