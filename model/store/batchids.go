package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// batchVersion is the first schema version with batch_ids (batch_jobs
// came in version 10)
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
