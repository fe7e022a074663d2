package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// PickStudy is key's study (study.Pick under key's bank), or why there is
// none in words the TUI's user can act on.
func PickStudy(ctx context.Context, st *store.Store, key study.Key) (store.StudyInfo, error) {
	info, _, err := study.Pick(ctx, st, key.Dataset, key.Judge, key.BankHash)
	if errors.Is(err, store.ErrNotFound) {
		return info, fmt.Errorf("judge %s has no answers for bank %.10s on dataset %s: screen the bank (Bank tab, s) or run it (Run tab, s) first",
			key.Judge, key.BankHash, key.Dataset)
	}
	return info, err
}

// StudyInput is what a selection or a budget curve reads of a study.
type StudyInput struct {
	Rows     []model.ScoreRow
	Labels   []model.Label // of the candidates with answers
	Warnings []string
	Source   string // names the workspace, dataset, judge and bank in reports
	Study    model.Study
}

// ReadStudy reads key's study (its planned runs) and the labels of the
// candidates that have answers; doing ("selecting on", "evaluating
// budgets on") words the warning about the others.
func ReadStudy(ctx context.Context, st *store.Store, key study.Key, doing string) (StudyInput, error) {
	info, err := PickStudy(ctx, st, key)
	if err != nil {
		return StudyInput{}, err
	}
	d, err := study.Read(ctx, st, info, study.Runs{})
	if err != nil {
		return StudyInput{}, err
	}
	in := StudyInput{Rows: d.Rows, Source: study.Source(st.Path(), info), Study: d.Study}
	var dropped int
	in.Labels, dropped = model.ScoredLabels(d.Rows, d.Labels)
	if dropped > 0 {
		in.Warnings = append(in.Warnings, fmt.Sprintf("%d labelled candidates have no answers; %s the %d that do", dropped, doing, len(in.Labels)))
	}
	return in, nil
}
