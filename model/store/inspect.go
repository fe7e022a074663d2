package store

import (
	"context"
	"database/sql"
	"math"
)

// Reply is one answered request of a candidate, as the judge sent it.
type Reply struct {
	Probe, Wording, Run string
	Raw                 string  // the judge's text as received
	Score               float64 // the parsed score; NaN when none was parsed
}

// Replies returns the answers (not the failed attempts) of judge to the
// requests about one candidate of dataset under bankHash ("" for every
// bank; an import judge's, which have no bank, under any), ordered by
// probe, wording and run: what the candidate inspector
// shows next to the scores.
func (s *Store) Replies(ctx context.Context, dataset, judge, bankHash, contextID, candidate string) ([]Reply, error) {
	rows, err := s.r.QueryContext(ctx, `
		SELECT r.probe, r.wording, r.run, p.raw, p.score
		FROM requests r
		JOIN judges j ON j.id = r.judge_id
		JOIN datasets d ON d.id = r.dataset_id
		JOIN responses p ON p.request_id = r.id AND p.ok = 1
		WHERE d.name = ? AND j.name = ? AND (? = '' OR r.bank_hash = ? OR j.backend = ?) AND r.context = ? AND r.candidate = ?
		ORDER BY r.probe, r.wording, r.run, p.id`,
		dataset, judge, bankHash, bankHash, ImportBackend, contextID, candidate)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Reply
	for rows.Next() {
		var r Reply
		var score sql.NullFloat64
		if err := rows.Scan(&r.Probe, &r.Wording, &r.Run, &r.Raw, &score); err != nil {
			return nil, err
		}
		r.Score = math.NaN()
		if score.Valid {
			r.Score = score.Float64
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
