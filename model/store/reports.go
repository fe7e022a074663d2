package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Report is a stored fit report: a JSON document with the coordinates it
// was computed from.
type Report struct {
	ID       int64
	Kind     string // what produced it, e.g. "fit"
	Dataset  string
	Judge    string
	BankHash string
	Created  time.Time
	Body     json.RawMessage
}

// PutReport stores r (its ID and Created are assigned) and returns its id.
// Body must be valid JSON.
func (s *Store) PutReport(ctx context.Context, r Report) (int64, error) {
	if r.Kind == "" {
		return 0, errors.New("report has no kind")
	}
	if !json.Valid(r.Body) {
		return 0, fmt.Errorf("report %s: body is not valid JSON", r.Kind)
	}
	var id int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "INSERT INTO reports(kind, dataset, judge, bank_hash, body, created) VALUES (?, ?, ?, ?, ?, ?)",
			r.Kind, r.Dataset, r.Judge, r.BankHash, string(r.Body), formatTime(time.Now()))
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	return id, err
}

// Report returns the report with that id, or an error wrapping ErrNotFound.
func (s *Store) Report(ctx context.Context, id int64) (Report, error) {
	r := Report{ID: id}
	var body, created string
	err := s.r.QueryRowContext(ctx, "SELECT kind, dataset, judge, bank_hash, body, created FROM reports WHERE id = ?", id).
		Scan(&r.Kind, &r.Dataset, &r.Judge, &r.BankHash, &body, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("report %d: %w", id, ErrNotFound)
	}
	r.Body, r.Created = json.RawMessage(body), parseTime(created)
	return r, err
}

// Reports lists the reports on dataset ("" for all), newest first.
func (s *Store) Reports(ctx context.Context, dataset string) ([]Report, error) {
	rows, err := s.r.QueryContext(ctx, `
		SELECT id, kind, dataset, judge, bank_hash, body, created FROM reports
		WHERE ? = '' OR dataset = ? ORDER BY created DESC, id DESC`, dataset, dataset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Report
	for rows.Next() {
		var r Report
		var body, created string
		if err := rows.Scan(&r.ID, &r.Kind, &r.Dataset, &r.Judge, &r.BankHash, &body, &created); err != nil {
			return nil, err
		}
		r.Body, r.Created = json.RawMessage(body), parseTime(created)
		out = append(out, r)
	}
	return out, rows.Err()
}
