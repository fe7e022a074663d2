package store

import (
	"context"
	"strings"
)

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
