package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model/store"
)

// The Selection tab's work: calib.Select (docs/protocol.md §9) on the stored
// answers of the current dataset, judge and bank version, as a job.

// selectJob is one selection in flight.
type selectJob = job[*calib.SelectReport]

// startSelectCmd starts a selection of key's answers with opts (its
// Progress is the job's) and returns the job at once.
func startSelectCmd(ctx context.Context, st *store.Store, key studyKey, opts calib.SelectOptions) (*selectJob, tea.Cmd) {
	return startJob(ctx, key, func(ctx context.Context, progress func(int, int)) (*calib.SelectReport, []string, error) {
		opts.Progress = progress
		return runSelect(ctx, st, key, opts)
	})
}

// runSelect reads the answers and labels and runs calib.Select on the
// candidates that have answers (a screen or an unfinished run scores part
// of the dataset).
func runSelect(ctx context.Context, st *store.Store, key studyKey, opts calib.SelectOptions) (*calib.SelectReport, []string, error) {
	in, err := readStudyInput(ctx, st, key, "selecting on")
	if err != nil {
		return nil, nil, err
	}
	opts.ScoresFile, opts.LabelsFile = in.source, in.source
	rep, w, err := calib.Select(ctx, in.rows, in.labels, opts)
	if err == nil {
		rep.Study = &in.study
	}
	return rep, append(in.warnings, w...), err
}
