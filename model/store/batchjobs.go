package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// batchJobsVersion is the first schema version with batch_jobs
// (migrations/0010_batch_jobs.sql).
const batchJobsVersion = 10

var errBatchJobsSchema = errors.New("store: this workspace predates batch jobs (schema 10): open it writable to upgrade it")

// Batch job states (BatchJob.State). Creating, Submitted and Ended jobs
// hold their requests (BatchHeld); Imported and Failed ones do not.
const (
	JobCreating  = "creating"  // recorded, the provider's create call not answered yet
	JobSubmitted = "submitted" // the provider has it and is running it
	JobEnded     = "ended"     // the provider is done; results not imported yet
	JobImported  = "imported"  // results stored (prism batch fetch)
	JobFailed    = "failed"    // never ran (refused at creation, or failed validation)
)

// BatchJob is one batch sent to a provider. Files and Counts are the
// provider's file ids and request counts as last seen; they hold no
// secret.
type BatchJob struct {
	ID       int64
	Provider string // openai | anthropic
	BatchID  string // "" while creating
	Tag      string // prism's name for it, sent as metadata where the provider keeps some
	Endpoint string // base URL, without credentials
	State    string
	Status   string // the provider's own word for it, as last seen
	Files    map[string]string
	Counts   map[string]int
	Requests int
	Created  time.Time
	Updated  time.Time
}

// PutBatchJob records a new job (its ID is set) and the custom_ids it
// carries, in one transaction.
func (s *Store) PutBatchJob(ctx context.Context, j *BatchJob, ids []string) error {
	if s.version < batchJobsVersion {
		return errBatchJobsSchema
	}
	files, counts, err := jobJSON(j)
	if err != nil {
		return err
	}
	now := time.Now()
	j.Created, j.Updated, j.Requests = now, now, len(ids)
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO batch_jobs(provider, batch_id, tag, endpoint, state, status, files, counts, requests, created, updated)
			VALUES (?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			j.Provider, j.BatchID, j.Tag, j.Endpoint, j.State, j.Status, files, counts, j.Requests, formatTime(now), formatTime(now))
		if err != nil {
			return fmt.Errorf("store: batch job: %w", err)
		}
		if j.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		ins, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO batch_job_requests(job, custom_id) VALUES (?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for _, id := range ids {
			if _, err := ins.ExecContext(ctx, j.ID, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// UpdateBatchJob writes j's batch id, state, status, files and counts.
func (s *Store) UpdateBatchJob(ctx context.Context, j *BatchJob) error {
	if s.version < batchJobsVersion {
		return errBatchJobsSchema
	}
	files, counts, err := jobJSON(j)
	if err != nil {
		return err
	}
	j.Updated = time.Now()
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE batch_jobs SET batch_id = NULLIF(?, ''), state = ?, status = ?, files = ?, counts = ?, updated = ? WHERE id = ?`,
			j.BatchID, j.State, j.Status, files, counts, formatTime(j.Updated), j.ID)
		return err
	})
}

func jobJSON(j *BatchJob) (files, counts string, err error) {
	f, err := json.Marshal(orEmpty(j.Files))
	if err != nil {
		return "", "", err
	}
	c, err := json.Marshal(orEmpty(j.Counts))
	return string(f), string(c), err
}

func orEmpty[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return m
}

// BatchJobs are the workspace's batch jobs, oldest first (none before
// schema 10).
func (s *Store) BatchJobs(ctx context.Context) ([]BatchJob, error) {
	if s.version < batchJobsVersion {
		return nil, nil
	}
	rows, err := s.r.QueryContext(ctx, `SELECT id, provider, COALESCE(batch_id, ''), tag, endpoint, state, status, files, counts, requests, created, updated
		FROM batch_jobs ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BatchJob
	for rows.Next() {
		var j BatchJob
		var files, counts, created, updated string
		if err := rows.Scan(&j.ID, &j.Provider, &j.BatchID, &j.Tag, &j.Endpoint, &j.State, &j.Status, &files, &counts, &j.Requests, &created, &updated); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(files), &j.Files); err != nil {
			return nil, fmt.Errorf("store: batch job %d: files: %w", j.ID, err)
		}
		if err := json.Unmarshal([]byte(counts), &j.Counts); err != nil {
			return nil, fmt.Errorf("store: batch job %d: counts: %w", j.ID, err)
		}
		j.Created, j.Updated = parseTime(created), parseTime(updated)
		out = append(out, j)
	}
	return out, rows.Err()
}

// BatchHeld maps each custom_id carried by a job still creating, running
// or not yet imported to that job's batch id (its tag while creating):
// sending one again would pay for it twice.
func (s *Store) BatchHeld(ctx context.Context) (map[string]string, error) {
	held := map[string]string{}
	if s.version < batchJobsVersion {
		return held, nil
	}
	rows, err := s.r.QueryContext(ctx, `SELECT r.custom_id, COALESCE(j.batch_id, j.tag) FROM batch_job_requests r
		JOIN batch_jobs j ON j.id = r.job WHERE j.state IN (?, ?, ?)`, JobCreating, JobSubmitted, JobEnded)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, job string
		if err := rows.Scan(&id, &job); err != nil {
			return nil, err
		}
		held[id] = job
	}
	return held, rows.Err()
}

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
