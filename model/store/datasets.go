package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store/redact"
)

// DatasetInfo summarises a stored dataset for listings.
type DatasetInfo struct {
	Name, Format, Task, Metric string
	Criteria                   []string
	Contexts, Candidates       int
	Created                    time.Time
}

// PutDataset stores d in one transaction: either all of it is stored or
// nothing is. A dataset of the same name is an error wrapping ErrExists
// unless replace is true, in which case the old one and everything recorded
// against it (requests, responses) is deleted first; while a run acquires
// a study of it, replacing fails with a *BusyError naming that run.
//
// Context ids must be unique within d and candidate ids unique within
// their context; the error names the offending ids. A NaN human score is
// stored as missing; infinite scores are rejected.
func (s *Store) PutDataset(ctx context.Context, d *model.Dataset, replace bool) error {
	d = redact.Dataset(d, s.knownSecrets())
	if err := checkDataset(d); err != nil {
		return err
	}
	criteria, err := json.Marshal(nonNil(d.Criteria))
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := dropOld(ctx, tx, d.Name, replace); err != nil {
			return err
		}
		dsID, err := insertDataset(ctx, tx, d, criteria)
		if err != nil {
			return err
		}
		if err := insertContexts(ctx, tx, dsID, d); err != nil || s.version < layoutVersion {
			return err // an older workspace (tests build them) has no layout column
		}
		return writeLayout(ctx, tx, dsID, layoutOfModel(d))
	})
}

// dropOld deletes the dataset name with all recorded against it when
// replace is true; a stored one is an error otherwise.
func dropOld(ctx context.Context, tx *sql.Tx, name string, replace bool) error {
	var old int64
	err := tx.QueryRowContext(ctx, "SELECT id FROM datasets WHERE name = ?", name).Scan(&old)
	switch {
	case err == nil && !replace:
		return fmt.Errorf("dataset %q: %w (replace it explicitly)", name, ErrExists)
	case err == nil:
		if err := checkDatasetFree(ctx, tx, old); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "DELETE FROM datasets WHERE id = ?", old)
		return err
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	return nil
}

// insertDataset writes d's row, under a new revision, and returns its id.
func insertDataset(ctx context.Context, tx *sql.Tx, d *model.Dataset, criteria []byte) (int64, error) {
	rev, err := newRevision()
	if err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx,
		"INSERT INTO datasets(name, format, task, metric, criteria, created, revision) VALUES (?, ?, ?, ?, ?, ?, ?)",
		d.Name, d.Format, d.Task, d.Metric, string(criteria), formatTime(time.Now()), rev)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// insertContexts writes d's contexts and candidates, their positions
// numbering file order.
func insertContexts(ctx context.Context, tx *sql.Tx, dsID int64, d *model.Dataset) error {
	insCtx, err := tx.PrepareContext(ctx,
		"INSERT INTO contexts(dataset_id, pos, ext_id, source, extra) VALUES (?, ?, ?, ?, ?)")
	if err != nil {
		return err
	}
	defer insCtx.Close()
	insCand, err := tx.PrepareContext(ctx,
		"INSERT INTO candidates(context_id, pos, ext_id, text, human, scores, extra) VALUES (?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		return err
	}
	defer insCand.Close()
	for i, c := range d.Contexts {
		extra, err := jsonOrNull(c.Extra)
		if err != nil {
			return err
		}
		res, err := insCtx.ExecContext(ctx, dsID, i, c.ID, c.Source, extra)
		if err != nil {
			return fmt.Errorf("context %q: %w", c.ID, err)
		}
		cID, err := res.LastInsertId()
		if err != nil {
			return err
		}
		for j, cand := range c.Candidates {
			scores, err := scoresJSON(cand.Scores)
			if err != nil {
				return err
			}
			extra, err := jsonOrNull(cand.Extra)
			if err != nil {
				return err
			}
			if _, err := insCand.ExecContext(ctx, cID, j, cand.ID, cand.Text, nullFloat(cand.Human), scores, extra); err != nil {
				return fmt.Errorf("context %q candidate %q: %w", c.ID, cand.ID, err)
			}
		}
	}
	return nil
}

// checkDataset rejects what the schema cannot hold faithfully, before any
// write, so the error names the item instead of a constraint.
func checkDataset(d *model.Dataset) error {
	if d == nil {
		return errors.New("dataset is nil")
	}
	if d.Name == "" {
		return errors.New("dataset has no name")
	}
	seenCtx := make(map[string]bool, len(d.Contexts))
	for _, c := range d.Contexts {
		if seenCtx[c.ID] {
			return fmt.Errorf("dataset %q: context id %q appears twice", d.Name, c.ID)
		}
		seenCtx[c.ID] = true
		seen := make(map[string]bool, len(c.Candidates))
		for _, cand := range c.Candidates {
			if seen[cand.ID] {
				return fmt.Errorf("dataset %q: context %q: candidate id %q appears twice", d.Name, c.ID, cand.ID)
			}
			seen[cand.ID] = true
			if math.IsInf(cand.Human, 0) {
				return fmt.Errorf("dataset %q: context %q candidate %q: human score is infinite", d.Name, c.ID, cand.ID)
			}
			for k, v := range cand.Scores {
				if math.IsInf(v, 0) {
					return fmt.Errorf("dataset %q: context %q candidate %q: score %q is infinite", d.Name, c.ID, cand.ID, k)
				}
			}
		}
	}
	return nil
}

// Dataset reads the named dataset back, contexts and candidates in their
// original order. Missing names give an error wrapping ErrNotFound.
func (s *Store) Dataset(ctx context.Context, name string) (*model.Dataset, error) {
	d, id, err := s.datasetFields(ctx, name)
	if err != nil {
		return nil, err
	}
	// Read in table order, put in file order here (study_rows.go).
	cs, err := s.readContexts(ctx, name, id)
	if err != nil {
		return nil, err
	}
	ks, err := s.readCandidates(ctx, name, id)
	if err != nil {
		return nil, err
	}
	d.Contexts = inFileOrder(cs, ks, func(c *model.Context, ks []model.Candidate) { c.Candidates = ks })
	return d, nil
}

// datasetFields reads the named dataset's own fields (no contexts) and
// its row id.
func (s *Store) datasetFields(ctx context.Context, name string) (*model.Dataset, int64, error) {
	d := &model.Dataset{Name: name}
	var id int64
	var criteria string
	err := s.r.QueryRowContext(ctx, "SELECT id, format, task, metric, criteria FROM datasets WHERE name = ?", name).
		Scan(&id, &d.Format, &d.Task, &d.Metric, &criteria)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, fmt.Errorf("dataset %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return nil, 0, err
	}
	if err := json.Unmarshal([]byte(criteria), &d.Criteria); err != nil {
		return nil, 0, fmt.Errorf("dataset %q: criteria: %w", name, err)
	}
	if len(d.Criteria) == 0 {
		d.Criteria = nil
	}
	return d, id, nil
}

// readContexts reads the contexts of dataset id (named name), in table
// order.
func (s *Store) readContexts(ctx context.Context, name string, id int64) ([]placed[model.Context], error) {
	var cs []placed[model.Context]
	rows, err := s.r.QueryContext(ctx, "SELECT id, pos, ext_id, source, extra FROM contexts WHERE dataset_id = ?", id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c placed[model.Context]
		var extra sql.NullString
		if err := rows.Scan(&c.row, &c.pos, &c.v.ID, &c.v.Source, &extra); err != nil {
			return nil, err
		}
		if err := unmarshalNull(extra, &c.v.Extra); err != nil {
			return nil, fmt.Errorf("dataset %q context %q: %w", name, c.v.ID, err)
		}
		cs = append(cs, c)
	}
	return cs, rows.Err()
}

// readCandidates reads the candidates of dataset id (named name), in
// table order.
func (s *Store) readCandidates(ctx context.Context, name string, id int64) ([]placed[model.Candidate], error) {
	var ks []placed[model.Candidate]
	rows, err := s.r.QueryContext(ctx, `
		SELECT context_id, pos, id, ext_id, text, human, scores, extra
		FROM candidates WHERE context_id IN (SELECT id FROM contexts WHERE dataset_id = ?)`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			k             placed[model.Candidate]
			human         sql.NullFloat64
			scores, extra sql.NullString
		)
		if err := rows.Scan(&k.ctx, &k.pos, &k.row, &k.v.ID, &k.v.Text, &human, &scores, &extra); err != nil {
			return nil, err
		}
		k.v.Human = math.NaN()
		if human.Valid {
			k.v.Human = human.Float64
		}
		if k.v.Scores, err = parseScores(scores); err != nil {
			return nil, fmt.Errorf("dataset %q candidate %q: %w", name, k.v.ID, err)
		}
		if err := unmarshalNull(extra, &k.v.Extra); err != nil {
			return nil, fmt.Errorf("dataset %q candidate %q: %w", name, k.v.ID, err)
		}
		ks = append(ks, k)
	}
	return ks, rows.Err()
}

// Datasets lists the stored datasets by name.
func (s *Store) Datasets(ctx context.Context) ([]DatasetInfo, error) {
	rows, err := s.r.QueryContext(ctx, `
		SELECT d.name, d.format, d.task, d.metric, d.criteria, d.created,
		       (SELECT count(*) FROM contexts c WHERE c.dataset_id = d.id),
		       (SELECT count(*) FROM contexts c JOIN candidates k ON k.context_id = c.id WHERE c.dataset_id = d.id)
		FROM datasets d ORDER BY d.name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DatasetInfo
	for rows.Next() {
		var in DatasetInfo
		var criteria, created string
		if err := rows.Scan(&in.Name, &in.Format, &in.Task, &in.Metric, &criteria, &created, &in.Contexts, &in.Candidates); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(criteria), &in.Criteria); err != nil {
			return nil, fmt.Errorf("dataset %q: criteria: %w", in.Name, err)
		}
		in.Created = parseTime(created)
		out = append(out, in)
	}
	return out, rows.Err()
}

// DeleteDataset removes the named dataset and every request and response
// recorded against it. While a run acquires a study of the dataset it
// fails with a *BusyError (as PutDataset with replace does).
func (s *Store) DeleteDataset(ctx context.Context, name string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, "SELECT id FROM datasets WHERE name = ?", name).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("dataset %q: %w", name, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if err := checkDatasetFree(ctx, tx, id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM datasets WHERE id = ?", id)
		return err
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// nullFloat maps NaN, the in-memory "missing", to SQL NULL.
func nullFloat(v float64) any {
	if math.IsNaN(v) {
		return nil
	}
	return v
}

func jsonOrNull(m map[string]string) (any, error) {
	if len(m) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

func unmarshalNull(s sql.NullString, v any) error {
	if !s.Valid {
		return nil
	}
	return json.Unmarshal([]byte(s.String), v)
}

// scoresJSON encodes per-criterion scores with JSON null for NaN, which
// JSON numbers cannot express.
func scoresJSON(m map[string]float64) (any, error) {
	if len(m) == 0 {
		return nil, nil
	}
	pm := make(map[string]*float64, len(m))
	for k, v := range m {
		if !math.IsNaN(v) {
			v := v
			pm[k] = &v
		} else {
			pm[k] = nil
		}
	}
	b, err := json.Marshal(pm)
	return string(b), err
}

func parseScores(s sql.NullString) (map[string]float64, error) {
	if !s.Valid {
		return nil, nil
	}
	var pm map[string]*float64
	if err := json.Unmarshal([]byte(s.String), &pm); err != nil {
		return nil, err
	}
	m := make(map[string]float64, len(pm))
	for k, v := range pm {
		if v == nil {
			m[k] = math.NaN()
		} else {
			m[k] = *v
		}
	}
	return m, nil
}
