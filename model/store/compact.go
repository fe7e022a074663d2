package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Schema version 5 stores requests compactly (migrations/0005): a study
// is a row of studies, a request's key is 32 bytes, and a request row
// carries its answer's score (exact text) and its count of failed attempts. This
// file holds the conversions between those columns and the Go values.

// compactVersion is the first schema version with compact requests.
const compactVersion = 5

// compact reports whether the open workspace has compact requests. A
// read-only open of an older workspace does not (it is never upgraded),
// and its readers use the requests table of versions 1–4, whose columns
// the view of version 5 keeps.
func (s *Store) compact() bool { return s.version >= compactVersion }

// answerText is study_requests.answer of an answer: its score in Go's
// shortest decimal form that parses back to the same float64 (exact by
// construction, and one or two characters for a judge's usual scores),
// or "" when no score was parsed. Minus zero is stored as "0", as SQLite
// reads back a REAL −0 (stored as the integer 0) from responses.score.
func answerText(score sql.NullFloat64) string {
	switch {
	case !score.Valid || math.IsNaN(score.Float64):
		return ""
	case score.Float64 == 0:
		return "0"
	}
	return strconv.FormatFloat(score.Float64, 'g', -1, 64)
}

// responseAnswer is answerText of a response's score (NaN: none parsed).
func responseAnswer(score float64) string {
	return answerText(sql.NullFloat64{Float64: score, Valid: !math.IsNaN(score)})
}

// scoreOfAnswer inverts answerText: the score, and whether one was
// parsed.
func scoreOfAnswer(s string) (float64, bool, error) {
	if s == "" {
		return math.NaN(), false, nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false, fmt.Errorf("store: answer %q: %w", s, err)
	}
	return x, true, nil
}

// keyValue is the stored form of a request key: its 32 bytes when it is
// a RequestKey (64 lower-case hex digits), else the text itself. The two
// never collide (a BLOB never equals a TEXT in SQLite), and keyString
// gives back the key exactly.
func keyValue(key string) any {
	if len(key) != 64 {
		return key
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return key
		}
	}
	b, _ := hex.DecodeString(key)
	return b
}

// keyString is the key of a stored key value (keyValue's inverse).
func keyString(v any) string {
	switch k := v.(type) {
	case []byte:
		return hex.EncodeToString(k)
	case string:
		return k
	}
	return ""
}

// sameKey reports whether a stored key value is key.
func sameKey(stored any, key string) bool {
	switch want := keyValue(key).(type) {
	case []byte:
		got, ok := stored.([]byte)
		return ok && bytes.Equal(got, want)
	case string:
		got, ok := stored.(string)
		return ok && got == want
	}
	return false
}

// keyPrefixLen is how many bytes of a stored key its index holds: the
// index of version 5 is on the key's first 8 bytes (a hash's, so
// selective) and the run, not on the whole key, so that its entries are a
// third of the size; a look-up matches the prefix through the index and
// the whole key on the rows it finds. The keys are hashes, so the index
// is written at random: its size is what each commit rewrites.
const keyPrefixLen = 8

// keyPrefix is the indexed prefix of a stored key value, as SQLite
// computes substr(CAST(key AS BLOB), 1, 8): its first bytes.
func keyPrefix(v any) []byte {
	var b []byte
	switch k := v.(type) {
	case []byte:
		b = k
	case string:
		b = []byte(k)
	}
	return b[:min(len(b), keyPrefixLen)]
}

// keyMatch is the condition that a look-up by key puts on the key table
// k (keyTable) for n keys, and keyArgs its arguments. Compact: the
// indexed prefix and then the whole key; versions 1–4: the text key.
//
// From version 7 the ids come from request_keys by prefix and from the
// tail (rows above request_keys_state.through) by the whole key; the
// whole key is then compared on every row found.
func (s *Store) keyMatch(n int) string {
	list := "(?" + strings.Repeat(", ?", n-1) + ")"
	switch {
	case s.separateKeys():
		return "k.id IN (SELECT id FROM request_keys WHERE prefix IN " + list +
			" UNION ALL SELECT id FROM study_requests WHERE id > (SELECT through FROM request_keys_state) AND key IN " + list +
			") AND k.key IN " + list
	case s.compact():
		return "substr(CAST(k.key AS BLOB), 1, 8) IN " + list + " AND k.key IN " + list
	}
	return "k.key IN " + list
}

func (s *Store) keyArgs(keys []string) []any {
	args := make([]any, 0, 3*len(keys))
	if !s.compact() {
		for _, k := range keys {
			args = append(args, k)
		}
		return args
	}
	for _, k := range keys {
		args = append(args, keyPrefix(keyValue(k)))
	}
	whole := 1
	if s.separateKeys() {
		whole = 2 // the tail's and the rows' comparisons
	}
	for range whole {
		for _, k := range keys {
			args = append(args, keyValue(k))
		}
	}
	return args
}

// keyTable is the table whose key column is indexed for look-ups by key:
// study_requests (compact) or the requests table of versions 1–4. A
// look-up joins it to the requests view by id for the other columns.
func (s *Store) keyTable() string {
	if s.compact() {
		return "study_requests"
	}
	return "requests"
}

// studyRef is a study row: its id and the id range of its requests.
type studyRef struct {
	id   int64
	bank string
	// lo, hi bound the ids of the study's requests (first_id, last_id);
	// ok is false when it has none yet.
	lo, hi int64
	ok     bool
	// generation is the study's write count (studies.generation).
	generation int64
}

// studiesOf reads the studies of judge on dataset under bankHash, or
// under every bank when bankHash is "" or, with importAnyBank, the judge
// is an import judge (whose scores have no bank). None when the judge or
// dataset is absent.
func studiesOf(ctx context.Context, q querier, judge, dataset, bankHash string, importAnyBank bool) ([]studyRef, error) {
	rows, err := q.QueryContext(ctx, `
		SELECT s.id, s.bank_hash, s.first_id, s.last_id, s.generation
		FROM studies s
		JOIN judges j ON j.id = s.judge_id
		JOIN datasets d ON d.id = s.dataset_id
		WHERE j.name = ? AND d.name = ? AND (? = '' OR s.bank_hash = ? OR (? AND j.backend = ?))
		ORDER BY s.id`, judge, dataset, bankHash, bankHash, importAnyBank, ImportBackend)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []studyRef
	for rows.Next() {
		var st studyRef
		var lo, hi sql.NullInt64
		if err := rows.Scan(&st.id, &st.bank, &lo, &hi, &st.generation); err != nil {
			return nil, err
		}
		st.lo, st.hi, st.ok = lo.Int64, hi.Int64, lo.Valid && hi.Valid
		out = append(out, st)
	}
	return out, rows.Err()
}
