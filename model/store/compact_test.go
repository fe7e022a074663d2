package store

import (
	"context"
	"database/sql"
	"math"
	"strings"
	"testing"
)

// queryPlan is SQLite's plan for q, one line per step.
func queryPlan(t *testing.T, s *Store, q string, nargs int) string {
	t.Helper()
	args := make([]any, nargs)
	for i := range args {
		args[i] = i
	}
	rows, err := s.r.Query("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, detail)
	}
	return strings.Join(lines, "\n")
}

// TestCompactQueryPlans: the look-ups by key use the key-prefix index
// (its expression must be spelled as in the index), and the study scans
// read an id range of the table, not every row.
func TestCompactQueryPlans(t *testing.T) {
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	if err := s.PutResponses(context.Background(), []Response{answer("c1", "x", "baseline", "0", 3)}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, query string
		nargs       int
		want        string
	}{
		{"key look-up, indexed", `SELECT r.key FROM ` + s.keyTable() + ` k JOIN requests r ON r.id = k.id WHERE ` + s.keyMatch(3), 9, "SEARCH request_keys USING PRIMARY KEY (prefix=?)"},
		{"key look-up, tail", `SELECT r.key FROM ` + s.keyTable() + ` k JOIN requests r ON r.id = k.id WHERE ` + s.keyMatch(3), 9, "SEARCH study_requests USING INTEGER PRIMARY KEY (rowid>?)"},
		{"key look-up, rows", `SELECT r.key FROM ` + s.keyTable() + ` k JOIN requests r ON r.id = k.id WHERE ` + s.keyMatch(3), 9, "SEARCH k USING INTEGER PRIMARY KEY (rowid=?)"},
		{"key and run", `SELECT r.key FROM ` + s.keyTable() + ` k JOIN requests r ON r.id = k.id WHERE ` + s.keyMatch(1) + ` AND k.run = ?`, 4, "SEARCH request_keys USING PRIMARY KEY (prefix=?)"},
		{"progress", progressCompact, 4, "SEARCH r USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"},
		{"scores", scanPacked, 3, "SEARCH study_requests USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"},
	} {
		if plan := queryPlan(t, s, c.query, c.nargs); !strings.Contains(plan, c.want) {
			t.Errorf("%s: plan\n%s\nwant a step %q", c.name, plan, c.want)
		}
	}
}

// TestKeyValue: RequestKeys are stored as their 32 bytes, other keys as
// text, and both come back exactly; the indexed prefix is what SQLite's
// substr(CAST(key AS BLOB), 1, 8) gives.
func TestKeyValue(t *testing.T) {
	s := openTemp(t)
	hexKey := keyOf("c1", "x", "baseline")
	for _, k := range []string{hexKey, strings.ToUpper(hexKey), hexKey[:63], "k1", "ünï-cödé key", ""} {
		v := keyValue(k)
		if b, isBlob := v.([]byte); isBlob != (k == hexKey) || (isBlob && len(b) != 32) {
			t.Errorf("keyValue(%q) = %T %v", k, v, v)
		}
		if got := keyString(v); got != k {
			t.Errorf("keyString(keyValue(%q)) = %q", k, got)
		}
		if !sameKey(v, k) || (k != "k1" && sameKey(v, "k1")) {
			t.Errorf("sameKey(keyValue(%q)) wrong", k)
		}
		var prefix []byte
		if err := s.r.QueryRow("SELECT substr(CAST(? AS BLOB), 1, 8)", v).Scan(&prefix); err != nil {
			t.Fatal(err)
		}
		if string(prefix) != string(keyPrefix(v)) {
			t.Errorf("key %q: SQLite's prefix %x, keyPrefix %x", k, prefix, keyPrefix(v))
		}
	}
}

// TestAnswerText: the answer column gives back every score exactly,
// minus zero as zero (as SQLite reads a REAL −0), and no score as none.
func TestAnswerText(t *testing.T) {
	for _, x := range []float64{0, 1, -1, 0.1 + 0.2, 1e-300, math.MaxFloat64, -math.SmallestNonzeroFloat64, 4.25, 1.0 / 3} {
		got, ok, err := scoreOfAnswer(responseAnswer(x))
		if err != nil || !ok || math.Float64bits(got) != math.Float64bits(x) {
			t.Errorf("score %v: back %v, %v, %v", x, got, ok, err)
		}
	}
	if got, ok, _ := scoreOfAnswer(responseAnswer(math.Copysign(0, -1))); !ok || math.Signbit(got) || got != 0 {
		t.Errorf("−0: back %v, %v; want +0", got, ok)
	}
	if _, ok, err := scoreOfAnswer(responseAnswer(math.NaN())); ok || err != nil {
		t.Errorf("no score came back as a score (%v)", err)
	}
	if _, _, err := scoreOfAnswer("x"); err == nil {
		t.Error("a bad answer column parsed")
	}
}

// FuzzAnswerText: every float64 a judge can give survives the answer
// column exactly.
func FuzzAnswerText(f *testing.F) {
	for _, x := range []float64{0, 3, 0.1, 1e308, -2.5e-310} {
		f.Add(math.Float64bits(x))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		if math.IsInf(x, 0) || math.IsNaN(x) || x == 0 {
			return
		}
		got, ok, err := scoreOfAnswer(responseAnswer(x))
		if err != nil || !ok || math.Float64bits(got) != bits {
			t.Fatalf("%v (%x): back %v, %v, %v", x, bits, got, ok, err)
		}
	})
}

// TestAnswerTextInSQL: the migration's SQL spells plain scores (integers
// below 1e6 in magnitude, minus zero) as answerText does, and leaves the
// others (NULL) to its Go step.
func TestAnswerTextInSQL(t *testing.T) {
	s := openTemp(t)
	for _, x := range []float64{0, math.Copysign(0, -1), 1, -1, 7, 100, 99999, 999999, -999999, 1e6, 1e7, 2.5, 0.1, -3.75, 1e-300, 123456.5} {
		var got sql.NullString
		if err := s.r.QueryRow(`SELECT CASE WHEN ? = CAST(? AS INTEGER) AND abs(?) < 1e6 THEN CAST(CAST(? AS INTEGER) AS TEXT) END`, x, x, x, x).Scan(&got); err != nil {
			t.Fatal(err)
		}
		plain := x == math.Trunc(x) && math.Abs(x) < 1e6
		if got.Valid != plain || (plain && got.String != responseAnswer(x)) {
			t.Errorf("score %v: SQL gives %q (valid %v), answerText %q", x, got.String, got.Valid, responseAnswer(x))
		}
	}
}
