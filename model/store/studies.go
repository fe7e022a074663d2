package store

import "context"

// StudyInfo is what a workspace holds for one study, a dataset × judge ×
// bank snapshot: the requests recorded, those answered, and those failed
// (a failed attempt and no answer yet). Failures counts failed attempts;
// a request may fail several times before it is answered.
type StudyInfo struct {
	Dataset  string
	Judge    string
	BankHash string
	BankName string // "" when the snapshot is not stored
	// Rubric is set for a rubric study (its snapshot's source starts with
	// RubricSourcePrefix): its requests are rubric ratings, not probes.
	Rubric   bool
	Requests int
	Answered int
	Failed   int
	Failures int
}

// Studies lists every study with recorded requests, by dataset, judge and
// bank name.
func (s *Store) Studies(ctx context.Context) ([]StudyInfo, error) {
	rows, err := s.r.QueryContext(ctx, `
		SELECT d.name, j.name, r.bank_hash, coalesce(b.name, ''), coalesce(b.source, ''), count(*),
		       coalesce(sum(EXISTS (SELECT 1 FROM responses p WHERE p.request_id = r.id AND p.ok = 1)), 0),
		       coalesce(sum(NOT EXISTS (SELECT 1 FROM responses p WHERE p.request_id = r.id AND p.ok = 1)
		                    AND EXISTS (SELECT 1 FROM responses p WHERE p.request_id = r.id AND p.ok = 0)), 0),
		       coalesce(sum((SELECT count(*) FROM responses p WHERE p.request_id = r.id AND p.ok = 0)), 0)
		FROM requests r
		JOIN judges j ON j.id = r.judge_id
		JOIN datasets d ON d.id = r.dataset_id
		LEFT JOIN banks b ON b.hash = r.bank_hash
		GROUP BY d.name, j.name, r.bank_hash
		ORDER BY d.name, j.name, coalesce(b.name, ''), r.bank_hash`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StudyInfo
	for rows.Next() {
		var st StudyInfo
		var source string
		if err := rows.Scan(&st.Dataset, &st.Judge, &st.BankHash, &st.BankName, &source, &st.Requests, &st.Answered, &st.Failed, &st.Failures); err != nil {
			return nil, err
		}
		st.Rubric = IsRubricSource(source)
		out = append(out, st)
	}
	return out, rows.Err()
}
