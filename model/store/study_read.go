package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"

	"github.com/prism-eval/prism/model"
)

// StudyRead is one decode of a study's score snapshot, shared by the two
// readers of a finished study in one command: the plan's estimate (its
// answered coordinates, Answers) and the read of its rows (ScanRead).
// prism score on an answered workspace decoded the snapshot once for each
// before (a quarter of its time); a StudyRead is passed from the one to
// the other, never kept beyond them.
type StudyRead struct {
	dataset, judge, bankHash string
	answers                  *StudyAnswers
	// sr and studies are set when the snapshot holds every study
	// ScanFitInput reads (no other bank's, no study without a current
	// snapshot): ScanRead then walks sr, after checking that the studies
	// are still of the generations decoded.
	sr      *studyRows
	studies []studyRef
}

// ReadStudy decodes the score snapshot of judge's study on dataset under
// bankHash, once for Answers and, with rows, ScanRead (the decode is kept
// for it). Its Answers are SnapshotAnswers' (nil when that is nil); a read
// whose Answers are nil reads nothing more.
func (s *Store) ReadStudy(ctx context.Context, dataset, judge, bankHash string, rows bool) (*StudyRead, error) {
	r := &StudyRead{dataset: dataset, judge: judge, bankHash: bankHash}
	if !s.compact() {
		return r, nil
	}
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	// The studies ScanFitInput reads: an import judge's of every bank too.
	studies, err := studiesOf(ctx, tx, judge, dataset, bankHash, true)
	if err != nil {
		return nil, err
	}
	sr := newStudyRows(noPositions()) // ScanRead places the pairs
	whole := true
	for _, st := range studies {
		if st.bank != bankHash {
			whole = false // not SnapshotAnswers' (bankHash "" names the study without a bank only)
			continue
		}
		if ok, err := readSnapshot(ctx, tx, sr, st); err != nil || !ok {
			return r, err
		}
	}
	r.answers = answersOf(sr)
	if whole && rows {
		r.sr, r.studies = sr, studies
	}
	return r, nil
}

// Answers is the study's answered coordinates (SnapshotAnswers), nil when
// it has no current snapshot.
func (r *StudyRead) Answers() *StudyAnswers {
	if r == nil {
		return nil
	}
	return r.answers
}

// ScanRead is ScanFitInput of r's study given d, the dataset as stored
// (DatasetAt, whole: its labels and its candidates' places are read from
// it instead of again from the workspace). It walks r's decode when r
// holds the study whole and the study has not been written since (its
// generations are those decoded), else it reads the study again
// (ScanFitInput); a nil r reads it again.
//
// fn is given each row's condition too, a number within this call: rows
// with the same number have the same probe, wording and run, so that a
// reader can key on it instead of on the row's strings
// (calib.Applier.AddCond).
func (s *Store) ScanRead(ctx context.Context, r *StudyRead, d *model.Dataset, reserve func(labels []model.Label, rows int), fn func(cond int32, row *model.ScoreRow) error) ([]model.Label, error) {
	if r == nil || r.sr == nil || d == nil || d.Name != r.dataset {
		return nil, fmt.Errorf("store: ScanRead needs a read study and its dataset")
	}
	current, err := s.readCurrent(ctx, r)
	if err != nil {
		return nil, err
	}
	if !current {
		return s.scanFitInput(ctx, r.dataset, r.judge, r.bankHash, reserve, fn)
	}
	layout := layoutOfDataset(d)
	labels, pos := labelsOf(layout), positionsOf(layout)
	sr := r.sr
	sr.pos = pos
	for i := range sr.pairs {
		p := &sr.pairs[i]
		p.bucket = pos.bucket(p.context, p.candidate)
	}
	return sr.fitInput(labels, reserve, fn, r.dataset, r.judge, r.bankHash)
}

// Holds reports whether ScanRead can walk r's decode for judge's study
// on dataset under bankHash (r read that study, whole); false for nil.
func (r *StudyRead) Holds(dataset, judge, bankHash string) bool {
	return r != nil && r.sr != nil && r.dataset == dataset && r.judge == judge && r.bankHash == bankHash
}

// readCurrent reports whether r's studies are still those decoded, of the
// same generations.
func (s *Store) readCurrent(ctx context.Context, r *StudyRead) (bool, error) {
	var now []studyRef
	err := func() error {
		tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer tx.Rollback()
		now, err = studiesOf(ctx, tx, r.judge, r.dataset, r.bankHash, true)
		return err
	}()
	if err != nil {
		return false, err
	}
	return slices.Equal(now, r.studies), nil
}

// layoutOfDataset is the layout layoutOf reads, of a dataset as Dataset
// read it (a human target NaN where the column is NULL).
func layoutOfDataset(d *model.Dataset) []layoutContext {
	out := make([]layoutContext, len(d.Contexts))
	for i, c := range d.Contexts {
		ks := make([]layoutCandidate, len(c.Candidates))
		for j, k := range c.Candidates {
			ks[j] = layoutCandidate{id: k.ID, human: sql.NullFloat64{Float64: k.Human, Valid: !math.IsNaN(k.Human)}}
		}
		out[i] = layoutContext{id: c.ID, candidates: ks}
	}
	return out
}

// Cond is the index of the study's condition (probe, wording, run) for
// HasAll, -1 when the study has no answer under it.
func (a *StudyAnswers) Cond(probe, wording, run string) int32 {
	if c, ok := a.condOf[[3]string{probe, wording, run}]; ok {
		return c
	}
	return -1
}

// HasAll reports whether candidate of context is answered under every
// condition of conds (indices from Cond, sorted ascending, none -1): one
// look-up a candidate instead of one a condition (an estimate of a
// finished study asks it of every candidate).
func (a *StudyAnswers) HasAll(context, candidate string, conds []int32) bool {
	p, ok := a.pairOf[[2]string{context, candidate}]
	if !ok {
		return len(conds) == 0
	}
	have := a.cond[a.start[p]:a.start[p+1]]
	for _, c := range conds {
		i, found := slices.BinarySearch(have, c)
		if !found {
			return false
		}
		have = have[i+1:]
	}
	return true
}
