package ui

import (
	"context"

	"github.com/prism-eval/prism/calib/budget"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/model/store"
)

// The Selection tab's budget curve (docs/budget.md): budget.Evaluate
// on the stored answers of the current dataset, judge and bank version, as
// a job; budgetView draws it.

type budgetJob = job[*budget.Report]

// budgetState is the Selection tab's budget curve: the evaluation in
// flight, the last report, and whether the curve replaces the
// subset-size curve on the left.
type budgetState struct {
	jobState[*budget.Report]
	rep      *budget.Report
	warnings []string
	key      studyKey
	show     bool
	view     budgetView
}

// startBudgetCmd starts a budget evaluation of key's answers and returns
// the job at once.
func startBudgetCmd(ctx context.Context, st *store.Store, key studyKey, opts budget.Options) (*budgetJob, tea.Cmd) {
	return startJob(ctx, key, func(ctx context.Context, _ func(int, int)) (*budget.Report, []string, error) {
		in, err := readStudyInput(ctx, st, key, "evaluating budgets on")
		if err != nil {
			return nil, nil, err
		}
		opts.ScoresFile, opts.LabelsFile = in.source, in.source
		rep, w, err := budget.Evaluate(ctx, in.rows, in.labels, opts)
		if err == nil {
			rep.Study = &in.study
		}
		return rep, append(in.warnings, w...), err
	})
}

// toggle shows or hides the curve; showing it evaluates the current
// answers when the curve on hand is of other answers (or there is none).
func (b *budgetState) toggle(a *App, current studyKey) tea.Cmd {
	if b.show {
		b.show = false
		return nil
	}
	b.show = true
	if b.job != nil || (b.rep != nil && b.key == current) {
		return nil
	}
	k, err := a.requireKey()
	if err != nil {
		b.err = err
		return nil
	}
	job, cmd := startBudgetCmd(a.ctx, a.study.Store, k, budget.DefaultOptions())
	b.start(job)
	return cmd
}

// update handles the budget job's messages.
func (b *budgetState) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case jobStartedMsg[*budget.Report]:
		return msg.follow(&b.jobState)
	case jobProgressMsg[*budget.Report]:
		return msg.apply(&b.jobState)
	case jobDoneMsg[*budget.Report]:
		if j := msg.job; b.finish(j) {
			b.rep, b.warnings, b.key = j.res, j.warnings, j.key
		}
	}
	return nil
}
