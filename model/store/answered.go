package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// coord is a request's coordinates within one (judge, dataset, bank).
type coord struct{ context, candidate, probe, wording, run string }

// Pending returns the requests of reqs, in order, that have no answer at
// their coordinates yet; failed attempts do not count as answers. A judge
// or dataset not yet stored has no answers. Before sending a pending
// request, the judge engine should still ask CachedAnswer whether the same
// messages were answered at other coordinates.
func (s *Store) Pending(ctx context.Context, reqs []Request) ([]Request, error) {
	type group struct{ judge, dataset, bank string }
	answered := map[group]map[coord]bool{}
	var out []Request
	for _, r := range reqs {
		g := group{r.Judge, r.Dataset, r.BankHash}
		set, ok := answered[g]
		if !ok {
			var err error
			if set, err = s.answeredSet(ctx, s.r, g.judge, g.dataset, g.bank); err != nil {
				return nil, err
			}
			answered[g] = set
		}
		if !set[coord{r.Context, r.Candidate, r.Probe, r.Wording, r.Run}] {
			out = append(out, r)
		}
	}
	return out, nil
}

// AnsweredSet holds the coordinates of a study's answers (one judge,
// dataset and bank hash), for a planner that asks about its requests one
// by one without first building them all (Pending does that for a list).
// It is either a set of its own or a view of a StudyAnswers.
type AnsweredSet struct {
	set  map[coord]bool
	view *answeredView
}

// Answered reads the coordinates of judge's answers on dataset under one
// bank hash; failed attempts are not answers. A judge or dataset not yet
// stored has none.
func (s *Store) Answered(ctx context.Context, judge, dataset, bankHash string) (AnsweredSet, error) {
	set, err := s.answeredSet(ctx, s.r, judge, dataset, bankHash)
	return AnsweredSet{set: set}, err
}

// Len is the number of answered coordinates.
func (a AnsweredSet) Len() int {
	if a.view != nil {
		return a.view.n
	}
	return len(a.set)
}

// Has reports whether the request at these coordinates (of the set's
// judge, dataset and bank) has an answer.
func (a AnsweredSet) Has(context, candidate, probe, wording, run string) bool {
	if a.view != nil {
		return a.view.has(context, candidate, probe, wording, run)
	}
	return a.set[coord{context, candidate, probe, wording, run}]
}

// Each calls f with the coordinates of every answer in the set, in no
// particular order.
func (a AnsweredSet) Each(f func(context, candidate, probe, wording, run string)) {
	if a.view != nil {
		a.view.each(f)
		return
	}
	for c := range a.set {
		f(c.context, c.candidate, c.probe, c.wording, c.run)
	}
}

// AnsweredRuns returns, for each of keys with an answer at any
// coordinates, the run labels answered: the (key, run) pairs CachedAnswers
// would find, without their answers. A planner that counts rather than
// stores (an estimate of many runs) asks this instead.
func (s *Store) AnsweredRuns(ctx context.Context, keys []string) (map[string][]string, error) {
	out := map[string][]string{}
	err := s.keyChunks(ctx, keys, func(where string, args []any) error {
		rows, err := s.r.QueryContext(ctx, `
			SELECT DISTINCT r.key, r.run
			FROM `+s.keyTable()+` k
			JOIN requests r ON r.id = k.id
			JOIN responses p ON p.request_id = r.id AND p.ok = 1
			WHERE `+where, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k, run string
			if err := rows.Scan(&k, &run); err != nil {
				return err
			}
			out[k] = append(out[k], run)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	for _, runs := range out {
		slices.Sort(runs) // in an order that does not depend on the index's
	}
	return out, nil
}

// keyChunks calls fn with keys in chunks of keyChunk keys, as the
// condition (keyMatch) and arguments of one look-up of keyTable each,
// after indexing the keys of the tail (indexKeys).
func (s *Store) keyChunks(ctx context.Context, keys []string, fn func(where string, args []any) error) error {
	if len(keys) == 0 {
		return nil
	}
	if err := s.indexKeys(ctx); err != nil {
		return fmt.Errorf("indexing request keys: %w", err)
	}
	chunk, err := s.keyChunk(ctx)
	if err != nil {
		return err
	}
	for len(keys) > 0 {
		n := min(len(keys), chunk)
		if err := fn(s.keyMatch(n), s.keyArgs(keys[:n])); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

// AnyAnswer reports whether the workspace holds any answer at all: when it
// holds none, no request can be answered from the cache (CachedAnswers).
func (s *Store) AnyAnswer(ctx context.Context) (bool, error) {
	var answered bool
	q := `SELECT EXISTS (SELECT 1 FROM responses WHERE ok = 1)`
	if s.compact() {
		q = `SELECT EXISTS (SELECT 1 FROM study_requests WHERE answer IS NOT NULL)`
	}
	err := s.r.QueryRowContext(ctx, q).Scan(&answered)
	return answered, err
}

// answeredSet returns the coordinates of judge on dataset under one bank
// hash that have an answer.
func (s *Store) answeredSet(ctx context.Context, q querier, judge, dataset, bank string) (map[coord]bool, error) {
	query := `
		SELECT r.context, r.candidate, r.probe, r.wording, r.run
		FROM requests r
		JOIN judges j ON j.id = r.judge_id
		JOIN datasets d ON d.id = r.dataset_id
		JOIN responses p ON p.request_id = r.id AND p.ok = 1
		WHERE j.name = ? AND d.name = ? AND r.bank_hash = ?`
	if s.compact() {
		query = `
		SELECT r.context, r.candidate, r.probe, r.wording, r.run
		FROM studies st
		JOIN judges j ON j.id = st.judge_id
		JOIN datasets d ON d.id = st.dataset_id
		JOIN study_requests r ON r.study_id = st.id
		WHERE j.name = ? AND d.name = ? AND st.bank_hash = ? AND r.answer IS NOT NULL`
	}
	rows, err := q.QueryContext(ctx, query, judge, dataset, bank)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	set := map[coord]bool{}
	for rows.Next() {
		var c coord
		if err := rows.Scan(&c.context, &c.candidate, &c.probe, &c.wording, &c.run); err != nil {
			return nil, err
		}
		set[c] = true
	}
	return set, rows.Err()
}

// CachedAnswer returns a stored answer to a request with this key and run
// label at any coordinates, so that identical messages are never sent
// twice. ok is false when there is none; failures are never returned.
func (s *Store) CachedAnswer(ctx context.Context, key, run string) (r Response, ok bool, err error) {
	got, err := s.CachedAnswers(ctx, [][2]string{{key, run}})
	if err != nil {
		return Response{}, false, err
	}
	r, ok = got[[2]string{key, run}]
	return r, ok, nil
}

// cachedChunk bounds the keys of one CachedAnswers query (SQLite's limit
// on bound parameters is far higher; this keeps each statement small).
const cachedChunk = 500

// tailChunk bounds the keys of one look-up by a read-only store of
// schema version 7 or later whose tail (the request rows not yet in
// request_keys) is not empty: each statement scans the tail once. 8,000
// keys are 24,000 bound parameters, under SQLite's limit of 32,766. At
// 500 keys a statement, 38,000 keys against a tail of 121,600 rows took
// 6.7 s (76 scans); at 8,000, 2.2–2.4 s (5 scans), against 1.4–1.9 s
// for the same look-up through version 6's index.
const tailChunk = 8000

// keyChunk is how many keys one look-up statement takes: tailChunk when
// the statements will scan a tail (a read-only store cannot index it),
// else cachedChunk (an indexed look-up of 38,000 keys took 1.5 s in
// statements of 500 keys, 2.0–2.2 s in statements of 8,000).
func (s *Store) keyChunk(ctx context.Context) (int, error) {
	if !s.readOnly || !s.separateKeys() {
		return cachedChunk, nil
	}
	var behind bool
	if err := s.r.QueryRowContext(ctx, sqlKeysBehind).Scan(&behind); err != nil {
		return 0, err
	}
	if behind {
		return tailChunk, nil
	}
	return cachedChunk, nil
}

// CachedAnswers is CachedAnswer for many (key, run) pairs at once: for
// each pair with a stored answer at any coordinates, the earliest one.
// It asks the key index (request_keys and the tail; study_requests_key
// in versions 5 and 6, requests_key before) in a few statements rather
// than one query per pair, which is what a planner resolving thousands
// of requests needs.
func (s *Store) CachedAnswers(ctx context.Context, want [][2]string) (map[[2]string]Response, error) {
	out := map[[2]string]Response{}
	if len(want) == 0 {
		return out, nil
	}
	// A workspace with no answer at all (a new study) needs no look-up.
	answered, err := s.AnyAnswer(ctx)
	if err != nil {
		return nil, err
	}
	if !answered {
		return out, nil
	}
	wanted := make(map[[2]string]bool, len(want))
	var keys []string
	seen := map[string]bool{}
	for _, w := range want {
		wanted[w] = true
		if !seen[w[0]] {
			seen[w[0]] = true
			keys = append(keys, w[0])
		}
	}
	if err := s.keyChunks(ctx, keys, func(where string, args []any) error { return s.cachedChunk(ctx, where, args, wanted, out) }); err != nil {
		return nil, err
	}
	return out, nil
}

// cachedChunk adds to out the earliest answer of every wanted (key, run)
// whose key is among keys.
func (s *Store) cachedChunk(ctx context.Context, where string, args []any, wanted map[[2]string]bool, out map[[2]string]Response) error {
	rows, err := s.r.QueryContext(ctx, `
		SELECT r.key, j.name, d.name, r.context, r.candidate, r.bank_hash, r.probe, r.wording, r.run,
		       p.raw, p.score, p.logprobs, p.prompt_tokens, p.cached_tokens, p.completion_tokens,
		       p.latency_ns, p.created
		FROM `+s.keyTable()+` k
		JOIN requests r ON r.id = k.id
		JOIN judges j ON j.id = r.judge_id
		JOIN datasets d ON d.id = r.dataset_id
		JOIN responses p ON p.request_id = r.id AND p.ok = 1
		WHERE `+where+`
		ORDER BY p.id`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r Response
		var score sql.NullFloat64
		var logprobs sql.NullString
		var latency int64
		var created string
		if err := rows.Scan(&r.Key, &r.Judge, &r.Dataset, &r.Context, &r.Candidate, &r.BankHash, &r.Probe, &r.Wording, &r.Run,
			&r.Raw, &score, &logprobs, &r.PromptTokens, &r.CachedTokens, &r.CompletionTokens, &latency, &created); err != nil {
			return err
		}
		k := [2]string{r.Key, r.Run}
		if _, done := out[k]; done || !wanted[k] {
			continue
		}
		r.Score = math.NaN()
		if score.Valid {
			r.Score = score.Float64
		}
		if logprobs.Valid {
			r.Logprobs = json.RawMessage(logprobs.String)
		}
		r.Latency = time.Duration(latency)
		r.Time = parseTime(created)
		out[k] = r
	}
	return rows.Err()
}

// answeredInChunk is the most context ids one AnsweredIn query binds
// (SQLite allows 32,766 variables; a short list keeps each statement
// cheap to prepare).
const answeredInChunk = 256

// AnsweredIn is Answered restricted to the requests of the given
// contexts: the coordinates of judge's answers on dataset under one bank
// hash whose context is one of contexts. A planner that works through a
// study a few contexts at a time (the engine's streamed plan) asks this,
// so that it never holds the coordinates of the whole study. Each
// context is read through the study's coordinates index, so the cost is
// that of the answers returned.
func (s *Store) AnsweredIn(ctx context.Context, judge, dataset, bankHash string, contexts []string) (AnsweredSet, error) {
	if !s.compact() {
		// A workspace older than schema 5 is only ever read (a run
		// upgrades it first): its whole set, kept to the contexts.
		all, err := s.Answered(ctx, judge, dataset, bankHash)
		if err != nil {
			return AnsweredSet{}, err
		}
		keep := make(map[string]bool, len(contexts))
		for _, c := range contexts {
			keep[c] = true
		}
		for c := range all.set {
			if !keep[c.context] {
				delete(all.set, c)
			}
		}
		return all, nil
	}
	set := map[coord]bool{}
	for len(contexts) > 0 {
		n := min(len(contexts), answeredInChunk)
		if err := s.answeredInChunk(ctx, judge, dataset, bankHash, contexts[:n], set); err != nil {
			return AnsweredSet{}, err
		}
		contexts = contexts[n:]
	}
	return AnsweredSet{set: set}, nil
}

func (s *Store) answeredInChunk(ctx context.Context, judge, dataset, bank string, contexts []string, set map[coord]bool) error {
	in := "?" + strings.Repeat(",?", len(contexts)-1)
	query := `
		SELECT r.context, r.candidate, r.probe, r.wording, r.run
		FROM studies st
		JOIN judges j ON j.id = st.judge_id
		JOIN datasets d ON d.id = st.dataset_id
		JOIN study_requests r ON r.study_id = st.id
		WHERE j.name = ? AND d.name = ? AND st.bank_hash = ? AND r.context IN (` + in + `) AND r.answer IS NOT NULL`
	args := make([]any, 0, 3+len(contexts))
	args = append(args, judge, dataset, bank)
	for _, c := range contexts {
		args = append(args, c)
	}
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var c coord
		if err := rows.Scan(&c.context, &c.candidate, &c.probe, &c.wording, &c.run); err != nil {
			return err
		}
		set[c] = true
	}
	return rows.Err()
}
