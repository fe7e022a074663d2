package store

import (
	"context"
	"database/sql"
	"math"
	"slices"

	"github.com/prism-eval/prism/model"
)

// StudyRead is one decode of a study's score snapshot, shared by the two
// readers of a finished study in one command: the plan's estimate (its
// answered coordinates, Answers) and the read of its rows (ScanCandidates).
// prism score on an answered workspace decoded the snapshot once for each
// before (a quarter of its time); a StudyRead is passed from the one to
// the other, never kept beyond them.
type StudyRead struct {
	dataset, judge, bankHash string
	answers                  *StudyAnswers
	// sr and studies are set when the snapshot holds every study
	// ScanFitInput reads (no other bank's, no study without a current
	// snapshot): ScanCandidates then walks sr, after checking that the studies
	// are still of the generations decoded.
	sr      *studyRows
	studies []studyRef
}

// ReadStudy decodes the score snapshot of judge's study on dataset under
// bankHash, once for Answers and, with rows, ScanCandidates (the decode is kept
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
	sr := newStudyRows(noPositions()) // ScanCandidates places the pairs
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
	r.answers = answersOf(sr, whole && rows)
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

// ScanCandidates is ScanFitInput of judge's study on dataset under
// bankHash a candidate at a time: fn is given each candidate's rows, in
// ScanFitInput's order, as one CandidateScores rewritten for each (its
// conditions numbered within this call), and the labels are returned. It
// walks r's decode when r holds the study (Holds), the study has not
// been written since (its generations are those decoded) and d, the
// dataset as stored (DatasetAt, whole), is given: the labels and the
// candidates' places are then d's. Else it reads them again.
func (s *Store) ScanCandidates(ctx context.Context, dataset, judge, bankHash string, r *StudyRead, d *model.Dataset, fn func(*model.CandidateScores) error) ([]model.Label, error) {
	current := false
	if r.Holds(dataset, judge, bankHash) && d != nil && d.Name == dataset {
		var err error
		if current, err = s.readCurrent(ctx, r); err != nil {
			return nil, err
		}
	}
	var labels []model.Label
	var sr *studyRows
	if current {
		labels = d.Labels()
		if ok, err := r.answers.eachInDataset(d, fn); err != nil {
			return nil, err
		} else if ok {
			return labels, nil
		}
		// Some answers are of candidates d lacks: place every pair.
		pos := positionsOf(layoutOfDataset(d))
		sr = r.sr
		sr.pos = pos
		for i := range sr.pairs {
			p := &sr.pairs[i]
			p.bucket = pos.bucket(p.context, p.candidate)
		}
	} else {
		var err error
		if labels, sr, err = s.fitRows(ctx, dataset, judge, bankHash); err != nil {
			return nil, err
		}
	}
	n := 0
	err := sr.eachCandidate(func(c *model.CandidateScores) error {
		n += len(c.Cond)
		return fn(c)
	})
	if err == nil && n == 0 {
		err = noAnswers(dataset, judge, bankHash)
	}
	if err != nil {
		return nil, err
	}
	return labels, nil
}

// BankHash is the bank hash of the study r read ("" for nil).
func (r *StudyRead) BankHash() string {
	if r == nil {
		return ""
	}
	return r.bankHash
}

// Holds reports whether ScanCandidates can walk r's decode for judge's study
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
	if len(have) > 8*len(conds) {
		for _, c := range conds {
			i, found := slices.BinarySearch(have, c)
			if !found {
				return false
			}
			have = have[i+1:]
		}
		return true
	}
	// Most often a candidate's answers are about as many as the
	// conditions asked: one merge of the two sorted runs.
	i := 0
	for _, c := range conds {
		for i < len(have) && have[i] < c {
			i++
		}
		if i == len(have) || have[i] != c {
			return false
		}
		i++
	}
	return true
}
