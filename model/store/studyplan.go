package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// planVersion is the schema version from which a study records its plan
// and reports are stored (migrations/0008_study_plans.sql).
const planVersion = 8

// StudyPlan is what one acquisition of a study planned: its runs per
// condition and its requests. Diagnostic names the diagnostic that
// planned it ("screen", "diagnose wording", …); "" is the study's own
// acquisition (prism run, the TUI's Run tab, prism score, batch files).
type StudyPlan struct {
	Dataset, Judge, BankHash string
	Runs, Requests           int
	Diagnostic               string
}

// PlanStudy records plan on its study, creating the study when it has no
// request yet: the study's own acquisition widens planned_runs and
// planned to at least the plan's; a diagnostic only adds its name to the
// study's diagnostics. The judge and the dataset must be stored.
func (s *Store) PlanStudy(ctx context.Context, plan StudyPlan) error {
	if s.version < planVersion {
		return nil // an older workspace opened as it is keeps no plans
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		var judgeID, datasetID int64
		err := tx.QueryRowContext(ctx, `SELECT j.id, d.id FROM judges j, datasets d WHERE j.name = ? AND d.name = ?`,
			plan.Judge, plan.Dataset).Scan(&judgeID, &datasetID)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("study plan: judge %q or dataset %q: %w", plan.Judge, plan.Dataset, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO studies(judge_id, dataset_id, bank_hash) VALUES (?, ?, ?)`,
			judgeID, datasetID, plan.BankHash); err != nil {
			return err
		}
		where := ` WHERE judge_id = ? AND dataset_id = ? AND bank_hash = ?`
		if plan.Diagnostic == "" {
			_, err = tx.ExecContext(ctx, `UPDATE studies SET planned_runs = max(coalesce(planned_runs, 0), ?),
				planned = max(coalesce(planned, 0), ?)`+where, plan.Runs, plan.Requests, judgeID, datasetID, plan.BankHash)
			return err
		}
		var have string
		if err := tx.QueryRowContext(ctx, `SELECT diagnostics FROM studies`+where, judgeID, datasetID, plan.BankHash).Scan(&have); err != nil {
			return err
		}
		names := splitNames(have)
		if slices.Contains(names, plan.Diagnostic) {
			return nil
		}
		names = append(names, plan.Diagnostic)
		slices.Sort(names)
		_, err = tx.ExecContext(ctx, `UPDATE studies SET diagnostics = ?`+where, strings.Join(names, ","), judgeID, datasetID, plan.BankHash)
		return err
	})
}

func splitNames(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// StoredReport is a report kept in the workspace with what went in.
type StoredReport struct {
	ID                       int64
	Kind                     string // "fit"
	Dataset, Judge, BankHash string
	Runs                     string // the runs read: "planned", "all" or a count
	Generation               int64  // the study's generation when it was read
	Inputs                   string // hash of the study read and the options
	Body                     []byte // the report as JSON
	Created                  time.Time
}

// PutReport stores r and returns its id. It fails with ErrReadOnly on a
// workspace opened read-only, and does nothing on a workspace older than
// version 8 (it has no reports table).
func (s *Store) PutReport(ctx context.Context, r StoredReport) (int64, error) {
	if s.version < planVersion {
		return 0, nil
	}
	var id int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO reports(kind, dataset, judge, bank_hash, runs, generation, inputs, body, created)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.Kind, r.Dataset, r.Judge, r.BankHash, r.Runs, r.Generation, r.Inputs, string(r.Body),
			formatTime(time.Now()))
		if err == nil {
			id, err = res.LastInsertId()
		}
		return err
	})
	return id, err
}

// Reports lists the stored reports of kind, newest first, without their
// bodies unless withBody; dataset "" lists every dataset's.
func (s *Store) Reports(ctx context.Context, kind, dataset string, withBody bool) ([]StoredReport, error) {
	if s.version < planVersion {
		return nil, nil
	}
	body := `''`
	if withBody {
		body = `body`
	}
	rows, err := s.r.QueryContext(ctx, `SELECT id, kind, dataset, judge, bank_hash, runs, generation, inputs, `+body+`, created
		FROM reports WHERE kind = ? AND (? = '' OR dataset = ?) ORDER BY id DESC`, kind, dataset, dataset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StoredReport
	for rows.Next() {
		var r StoredReport
		var b, created string
		if err := rows.Scan(&r.ID, &r.Kind, &r.Dataset, &r.Judge, &r.BankHash, &r.Runs, &r.Generation, &r.Inputs, &b, &created); err != nil {
			return nil, err
		}
		r.Body = []byte(b)
		r.Created = parseTime(created)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Generation is the study's generation: it changes whenever a request or
// answer of the study is written (0 when the study has none).
func (s *Store) Generation(ctx context.Context, dataset, judge, bankHash string) (int64, error) {
	if !s.compact() {
		return 0, nil
	}
	var g int64
	err := s.r.QueryRowContext(ctx, `SELECT s.generation FROM studies s
		JOIN judges j ON j.id = s.judge_id JOIN datasets d ON d.id = s.dataset_id
		WHERE d.name = ? AND j.name = ? AND s.bank_hash = ?`, dataset, judge, bankHash).Scan(&g)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return g, err
}
