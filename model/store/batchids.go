package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// batchVersion is the first schema version with batch_ids and batch_jobs
// (migrations/0009_batch_ids.sql).
const batchVersion = 9

var errBatchSchema = errors.New("store: this workspace predates batch ids (schema 9): open it writable to upgrade it")

// PutBatchIDs records short → custom_id pairs of an exported batch file.
// A short id already recorded for another custom_id is an error (the
// import could not tell them apart).
func (s *Store) PutBatchIDs(ctx context.Context, ids map[string]string) error {
	if s.version < batchVersion {
		return errBatchSchema
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		ins, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO batch_ids(short, custom_id) VALUES (?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for short, id := range ids {
			res, err := ins.ExecContext(ctx, short, id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				continue
			}
			var have string
			if err := tx.QueryRowContext(ctx, `SELECT custom_id FROM batch_ids WHERE short = ?`, short).Scan(&have); err != nil {
				return err
			}
			if have != id {
				return fmt.Errorf("store: batch id %s already names %q, not %q", short, have, id)
			}
		}
		return nil
	})
}

// BatchID is the custom_id recorded for a short batch id; ok is false when
// none is.
func (s *Store) BatchID(ctx context.Context, short string) (id string, ok bool, err error) {
	if s.version < batchVersion {
		return "", false, nil
	}
	err = s.r.QueryRowContext(ctx, `SELECT custom_id FROM batch_ids WHERE short = ?`, short).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return id, err == nil, err
}

// BatchJob is a provider batch that prism batch submit created.
type BatchJob struct {
	Provider, ID, File, State string
	Created, Updated          time.Time
}

// PutBatchJob records a batch job or its new state.
func (s *Store) PutBatchJob(ctx context.Context, j BatchJob) error {
	if s.version < batchVersion {
		return errBatchSchema
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO batch_jobs(provider, batch_id, file, state, created, updated) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT(provider, batch_id) DO UPDATE SET state = excluded.state, updated = excluded.updated`,
			j.Provider, j.ID, j.File, j.State, now, now)
		return err
	})
}

// BatchJobs lists the recorded batch jobs, oldest first.
func (s *Store) BatchJobs(ctx context.Context) ([]BatchJob, error) {
	if s.version < batchVersion {
		return nil, nil
	}
	rows, err := s.r.QueryContext(ctx, `SELECT provider, batch_id, file, state, created, updated FROM batch_jobs ORDER BY created, batch_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BatchJob
	for rows.Next() {
		var j BatchJob
		var c, u string
		if err := rows.Scan(&j.Provider, &j.ID, &j.File, &j.State, &c, &u); err != nil {
			return nil, err
		}
		j.Created, _ = time.Parse(time.RFC3339Nano, c)
		j.Updated, _ = time.Parse(time.RFC3339Nano, u)
		out = append(out, j)
	}
	return out, rows.Err()
}
