package ui

import (
	"context"

	"github.com/prism-eval/prism/calib/selection"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/model/store"
)

// The Selection tab's work: calib.Select (docs/protocol.md §9) on the stored
// answers of the current dataset, judge and bank version, as a job.

// selectJob is one selection in flight.
type selectJob = job[*selection.Report]

// startSelectCmd starts a selection of key's answers with opts (its
// Progress is the job's) and returns the job at once.
func startSelectCmd(ctx context.Context, st *store.Store, key studyKey, opts selection.Options) (*selectJob, tea.Cmd) {
	return startJob(ctx, key, func(ctx context.Context, progress func(int, int)) (*selection.Report, []string, error) {
		opts.Progress = progress
		return runSelect(ctx, st, key, opts)
	})
}

// runSelect reads the answers and labels and runs selection.Select on the
// candidates that have answers (a screen or an unfinished run scores part
// of the dataset).
func runSelect(ctx context.Context, st *store.Store, key studyKey, opts selection.Options) (*selection.Report, []string, error) {
	in, err := readStudyInput(ctx, st, key, "selecting on")
	if err != nil {
		return nil, nil, err
	}
	opts.ScoresFile, opts.LabelsFile = in.source, in.source
	rep, w, err := selection.Select(ctx, in.rows, in.labels, opts)
	if err == nil {
		rep.Study = &in.study
	}
	return rep, append(in.warnings, w...), err
}
