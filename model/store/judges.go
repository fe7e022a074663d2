package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/prism-eval/prism/model/store/redact"
)

// Judge is a judge configuration: which backend and model answered, with
// which parameters. It never holds an API key: PutJudge strips anything
// that looks like one.
type Judge struct {
	ID      int64
	Name    string // unique within the workspace
	Backend string // e.g. "openai", "offline", "import"
	Model   string
	BaseURL string
	Params  map[string]any // sampling parameters (temperature, max_tokens, …)
	Created time.Time

	// Stripped lists, after PutJudge, the fields removed as credentials
	// (paths only, never values). It is not stored.
	Stripped []string
}

// Judge parameters a batched study stores with its judge (judge/engine
// sets them): ParamBatched is true, ParamOrderSeed the order plan's seed.
const (
	ParamBatched   = "batched"
	ParamOrderSeed = "order_seed"
)

// OrderSeed returns the order seed the judge's parameters hold, and
// whether the judge is a batched study's.
func (j Judge) OrderSeed() (int64, bool) {
	if b, _ := j.Params[ParamBatched].(bool); !b {
		return 0, false
	}
	switch v := j.Params[ParamOrderSeed].(type) {
	case float64: // JSON numbers read back from the store
		return int64(v), true
	case int64:
		return v, true
	case int:
		return int64(v), true
	}
	return 0, false
}

// PutJudge stores j under its name and returns what was stored. Parameter
// fields named like credentials (api_key, token, authorization, …) or whose
// values look like keys (sk-…, Bearer …, or a secret given to AddSecret)
// are removed, as are a password or key in BaseURL; Stripped names them.
//
// Storing a name again returns the stored judge when the configuration is
// the same and an error wrapping ErrExists when it differs, so responses
// under one judge name always come from one configuration.
func (s *Store) PutJudge(ctx context.Context, j Judge) (Judge, error) {
	if j.Name == "" {
		return Judge{}, errors.New("judge has no name")
	}
	if j.Backend == "" {
		return Judge{}, fmt.Errorf("judge %q has no backend", j.Name)
	}
	secrets := s.knownSecrets()
	params, removed := redact.Params(j.Params, secrets)
	base, removedURL := redact.URL(j.BaseURL, secrets)
	removed = append(removed, removedURL...)
	sort.Strings(removed)
	if params == nil {
		params = map[string]any{}
	}
	pj, err := json.Marshal(params) // map keys come out sorted: a canonical form
	if err != nil {
		return Judge{}, fmt.Errorf("judge %q: params: %w", j.Name, err)
	}
	j.BaseURL, j.Params, j.Stripped = base, params, removed
	err = s.tx(ctx, func(tx *sql.Tx) error {
		var old Judge
		var oldParams, created string
		err := tx.QueryRowContext(ctx, "SELECT id, backend, model, base_url, params, created FROM judges WHERE name = ?", j.Name).
			Scan(&old.ID, &old.Backend, &old.Model, &old.BaseURL, &oldParams, &created)
		switch {
		case err == nil:
			if old.Backend != j.Backend || old.Model != j.Model || old.BaseURL != j.BaseURL || oldParams != string(pj) {
				return fmt.Errorf("judge %q: %w with a different configuration (%s %s); choose another name",
					j.Name, ErrExists, old.Backend, old.Model)
			}
			j.ID, j.Created = old.ID, parseTime(created)
			return nil
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		now := time.Now()
		res, err := tx.ExecContext(ctx, "INSERT INTO judges(name, backend, model, base_url, params, created) VALUES (?, ?, ?, ?, ?, ?)",
			j.Name, j.Backend, j.Model, j.BaseURL, string(pj), formatTime(now))
		if err != nil {
			return err
		}
		j.ID, err = res.LastInsertId()
		j.Created = parseTime(formatTime(now))
		return err
	})
	if err != nil {
		return Judge{}, err
	}
	return j, nil
}

// Judge returns the named judge, or an error wrapping ErrNotFound.
func (s *Store) Judge(ctx context.Context, name string) (Judge, error) {
	j := Judge{Name: name}
	var params, created string
	err := s.r.QueryRowContext(ctx, "SELECT id, backend, model, base_url, params, created FROM judges WHERE name = ?", name).
		Scan(&j.ID, &j.Backend, &j.Model, &j.BaseURL, &params, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return j, fmt.Errorf("judge %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return j, err
	}
	j.Created = parseTime(created)
	return j, json.Unmarshal([]byte(params), &j.Params)
}

// Judges lists the stored judges by name.
func (s *Store) Judges(ctx context.Context) ([]Judge, error) {
	rows, err := s.r.QueryContext(ctx, "SELECT id, name, backend, model, base_url, params, created FROM judges ORDER BY name")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Judge
	for rows.Next() {
		var j Judge
		var params, created string
		if err := rows.Scan(&j.ID, &j.Name, &j.Backend, &j.Model, &j.BaseURL, &params, &created); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(params), &j.Params); err != nil {
			return nil, fmt.Errorf("judge %q: params: %w", j.Name, err)
		}
		j.Created = parseTime(created)
		out = append(out, j)
	}
	return out, rows.Err()
}
