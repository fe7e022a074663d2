package store

import (
	"context"
	"database/sql"
	"fmt"
	"unsafe"

	"github.com/prism-eval/prism/model"
)

// PutRequests records requests without answers, so that a batch exported
// for another machine can be matched back by key and run when its output
// is imported (see RequestsByKey). Requests already recorded are left as
// they are; recording a different key at the same coordinates is an error,
// as in PutResponses. All of rs is written in one transaction.
func (s *Store) PutRequests(ctx context.Context, rs []Request) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		up, err := prepareRequestUpsert(ctx, tx, nil)
		if err != nil {
			return err
		}
		defer up.Close()
		for i := range rs {
			r := &rs[i]
			if _, _, _, err := up.put(ctx, r, nil); err != nil {
				return fmt.Errorf("request %d (%s/%s %s/%s %s): %w", i, r.Judge, r.Dataset, r.Context, r.Candidate, r.Probe, err)
			}
		}
		return up.finish(ctx)
	})
}

// RequestsByKey returns every recorded request with this key and run label
// (one per coordinates it was recorded at), answered or not.
func (s *Store) RequestsByKey(ctx context.Context, key, run string) ([]Request, error) {
	if err := s.indexKeys(ctx); err != nil {
		return nil, fmt.Errorf("indexing request keys: %w", err)
	}
	rows, err := s.r.QueryContext(ctx, `
		SELECT r.key, j.name, d.name, r.context, r.candidate, r.bank_hash, r.probe, r.wording, r.run
		FROM `+s.keyTable()+` k
		JOIN requests r ON r.id = k.id
		JOIN judges j ON j.id = r.judge_id
		JOIN datasets d ON d.id = r.dataset_id
		WHERE `+s.keyMatch(1)+` AND k.run = ?
		ORDER BY r.id`, append(s.keyArgs([]string{key}), run)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Request
	for rows.Next() {
		var q Request
		if err := rows.Scan(&q.Key, &q.Judge, &q.Dataset, &q.Context, &q.Candidate, &q.BankHash, &q.Probe, &q.Wording, &q.Run); err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// FitInput is what prism fit needs from a workspace: the judge's score rows
// on dataset (one bank snapshot, or all when bankHash is "") and the human
// labels of the dataset's candidates. Candidates without a human score
// give no label. Requests that failed, or were never answered, have no
// row, so they are missing cells for the fit (docs/protocol.md §2).
func (s *Store) FitInput(ctx context.Context, dataset, judge, bankHash string) ([]model.ScoreRow, []model.Label, error) {
	labels, pos, err := s.fitLayout(ctx, dataset)
	if err != nil {
		return nil, nil, err
	}
	sr, err := s.studyRowsAt(ctx, pos, dataset, judge, bankHash)
	if err != nil {
		return nil, nil, err
	}
	rows := sr.ordered()
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("judge %q has no answers on dataset %q%s: %w", judge, dataset, bankNote(bankHash), ErrNotFound)
	}
	return rows, labels, nil
}

// ScanFitInput is FitInput without the slice of score rows: it reads the
// labels and the study's answers, calls reserve with the labels and the
// count of rows to come (so a design builder and a memory limit can be
// sized before a row arrives), then fn with each score row as ScanScores
// gives it, and returns the labels. No row is the same error as
// FitInput's.
func (s *Store) ScanFitInput(ctx context.Context, dataset, judge, bankHash string, reserve func(labels []model.Label, rows int), fn func(*model.ScoreRow) error) ([]model.Label, error) {
	labels, pos, err := s.fitLayout(ctx, dataset)
	if err != nil {
		return nil, err
	}
	sr, err := s.studyRowsAt(ctx, pos, dataset, judge, bankHash)
	if err != nil {
		return nil, err
	}
	return sr.fitInput(labels, reserve, fn, dataset, judge, bankHash)
}

// fitInput walks sr's rows for ScanFitInput, labels given to reserve
// first; a study without rows is ErrNotFound.
func (sr *studyRows) fitInput(labels []model.Label, reserve func(labels []model.Label, rows int), fn func(*model.ScoreRow) error, dataset, judge, bankHash string) ([]model.Label, error) {
	n := 0
	err := sr.each(func(rows int) {
		n = rows
		if reserve != nil {
			reserve(labels, rows)
		}
	}, fn)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("judge %q has no answers on dataset %q%s: %w", judge, dataset, bankNote(bankHash), ErrNotFound)
	}
	return labels, nil
}

// fitLayout reads the dataset's layout once for a fit: its labels (not
// the dataset: its texts are not needed) and Scores' positions.
func (s *Store) fitLayout(ctx context.Context, dataset string) ([]model.Label, datasetPositions, error) {
	layout, ok, err := s.layoutOf(ctx, dataset)
	if err != nil {
		return nil, datasetPositions{}, err
	}
	if !ok {
		return nil, datasetPositions{}, fmt.Errorf("dataset %q: %w", dataset, ErrNotFound)
	}
	return labelsOf(layout), positionsOf(layout), nil
}

// ScanRowBytes is what ScanFitInput holds per row while it calls fn: a
// packed answer (scoreRec, 16 bytes) and its place in the order (4). A
// workspace older than schema 5, read-only, holds its request id too.
const ScanRowBytes = int64(unsafe.Sizeof(scoreRec{})) + 4

func bankNote(h string) string {
	if h == "" {
		return ""
	}
	return " under bank " + h
}
