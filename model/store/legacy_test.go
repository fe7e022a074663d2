package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// legacyPut writes rs into a workspace of schema version 1–4 as the code
// of those versions did (PutResponses before version 5): a requests row
// per coordinates with the key as text, kept when it exists, and every
// response but a second answer. A nil-response entry (answer false and
// no ErrKind, Raw "-") records the request alone, as PutRequests did.
func legacyPut(t testing.TB, s *Store, rs []Response, requestOnly ...bool) {
	t.Helper()
	ctx := context.Background()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for i := range rs {
		r := &rs[i]
		var judgeID, dsID int64
		if err := tx.QueryRowContext(ctx, "SELECT id FROM judges WHERE name = ?", r.Judge).Scan(&judgeID); err != nil {
			t.Fatalf("judge %q: %v", r.Judge, err)
		}
		if err := tx.QueryRowContext(ctx, "SELECT id FROM datasets WHERE name = ?", r.Dataset).Scan(&dsID); err != nil {
			t.Fatalf("dataset %q: %v", r.Dataset, err)
		}
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO requests(key, judge_id, dataset_id, context, candidate, bank_hash, probe, wording, run)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(judge_id, dataset_id, bank_hash, context, candidate, probe, wording, run) DO NOTHING`,
			r.Key, judgeID, dsID, r.Context, r.Candidate, r.BankHash, r.Probe, r.Wording, r.Run); err != nil {
			t.Fatal(err)
		}
		if len(requestOnly) > 0 && requestOnly[0] {
			continue
		}
		var reqID int64
		if err := tx.QueryRowContext(ctx, `SELECT id FROM requests WHERE judge_id = ? AND dataset_id = ? AND bank_hash = ?
			AND context = ? AND candidate = ? AND probe = ? AND wording = ? AND run = ?`,
			judgeID, dsID, r.BankHash, r.Context, r.Candidate, r.Probe, r.Wording, r.Run).Scan(&reqID); err != nil {
			t.Fatal(err)
		}
		ok := 0
		if r.Answered() {
			ok = 1
		}
		var logprobs any
		if len(r.Logprobs) > 0 {
			if !json.Valid(r.Logprobs) {
				t.Fatal("bad logprobs")
			}
			logprobs = string(r.Logprobs)
		}
		tm := r.Time
		if tm.IsZero() {
			tm = time.Unix(1700000000, int64(i)).UTC()
		}
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO responses(request_id, ok, raw, score, logprobs, prompt_tokens, cached_tokens,
			                      completion_tokens, latency_ns, error_kind, error, created)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO NOTHING`,
			reqID, ok, r.Raw, nullFloat(r.Score), logprobs, r.PromptTokens, r.CachedTokens, r.CompletionTokens,
			int64(r.Latency), r.ErrKind, r.Err, formatTime(tm)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// responseDump is every response row by id with its request's columns,
// through the requests table (versions 1–4) or view (5): what a migration
// must carry over unchanged.
func responseDump(t testing.TB, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`
		SELECT p.id, r.id, r.key, r.judge_id, r.dataset_id, r.context, r.candidate, r.bank_hash, r.probe, r.wording, r.run,
		       p.ok, p.raw, p.score, coalesce(p.logprobs, 'NULL'), p.prompt_tokens, p.cached_tokens,
		       p.completion_tokens, p.latency_ns, p.error_kind, p.error, p.created
		FROM responses p JOIN requests r ON r.id = p.request_id
		ORDER BY p.id`)
	return scanRows(t, rows, err, func(f []any) string { b, _ := json.Marshal(f); return string(b) })
}

// scanRows reads every row of a query (its error err) as strings made by
// format of the row's columns, in the query's order.
func scanRows(t testing.TB, rows *sql.Rows, err error, format func([]any) string) []string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		f := make([]any, len(cols))
		ptrs := make([]any, len(f))
		for i := range f {
			ptrs[i] = &f[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, format(f))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// requestDump is every request row by id (versions 1–4: the table; 5:
// the view), answered or not.
func requestDump(t testing.TB, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT id, key, judge_id, dataset_id, context, candidate, bank_hash, probe, wording, run
		FROM requests ORDER BY id`)
	return scanRows(t, rows, err, func(f []any) string { b, _ := json.Marshal(f); return string(b) })
}

// legacyJournal is testdata/journal-v6.answers, written by the journal
// code of older prism versions: three records, the responses of
// legacyJournalResponses.
func legacyJournal(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "journal-v6.answers"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func legacyJournalResponses() []Response {
	at := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	rs := []Response{answer("c1", "x", "baseline", "0", 4), failure("c2", "a", "baseline", "0", "timeout"), answer("c2", "a", "baseline", "0", 3)}
	for i := range rs {
		rs[i].Time = at
	}
	return rs
}

// leaveJournal makes s look like a workspace an older prism's run was
// killed on: a journals row for token, folded up to folded bytes, and
// the journal file holding data.
func leaveJournal(t *testing.T, s *Store, token string, folded int64, data []byte) {
	t.Helper()
	if _, err := s.w.Exec("INSERT INTO journals(token, folded) VALUES (?, ?)", token, folded); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(journalPath(s.path, token), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func journalLeft(t *testing.T, s *Store) (rows int, files []string) {
	t.Helper()
	if err := s.r.QueryRow("SELECT count(*) FROM journals").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(s.path + ".answers-*")
	if err != nil {
		t.Fatal(err)
	}
	return rows, files
}

// The old journal decodes to exactly what was written, every field.
func TestLegacyJournalDecodes(t *testing.T) {
	got, want := decodeJournal(legacyJournal(t)), legacyJournalResponses()
	if len(got) != len(want) {
		t.Fatalf("%d records decoded, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		same := g.Request == w.Request && g.Raw == w.Raw && (g.Score == w.Score || g.Score != g.Score && w.Score != w.Score) &&
			string(g.Logprobs) == string(w.Logprobs) && g.PromptTokens == w.PromptTokens && g.CachedTokens == w.CachedTokens &&
			g.CompletionTokens == w.CompletionTokens && g.Latency == w.Latency && g.ErrKind == w.ErrKind && g.Err == w.Err && g.Time.Equal(w.Time)
		if !same {
			t.Errorf("record %d:\n%+v\nwant\n%+v", i, g, w)
		}
	}
}

// Decoding stops at the first torn or damaged record, keeping those
// before it.
func TestLegacyJournalStopsAtDamage(t *testing.T) {
	data := legacyJournal(t)
	all := decodeJournal(data)
	if n := len(decodeJournal(data[:len(data)-3])); n != len(all)-1 {
		t.Errorf("torn last record: %d decoded, want %d", n, len(all)-1)
	}
	flipped := slices.Clone(data)
	flipped[len(data)-10] ^= 0x40
	if n := len(decodeJournal(flipped)); n != len(all)-1 {
		t.Errorf("a flipped byte in the last record: %d decoded, want %d", n, len(all)-1)
	}
	if n := len(decodeJournal(append(slices.Clone(data), make([]byte, 64)...))); n != len(all) {
		t.Errorf("a zero-filled tail: %d decoded, want %d", n, len(all))
	}
}

// A journal an older prism's killed run left (its first record already
// folded, its last torn) is folded by the next open of the workspace:
// the whole records not folded yet, once, and nothing of the torn one;
// its row and file are gone after. A journal whose run is alive is left
// to it.
func TestLeftoverJournalIsFoldedOnOpen(t *testing.T) {
	ctx := context.Background()
	s, ref := openTemp(t), openTemp(t)
	seedJudgeAndDataset(t, s)
	seedJudgeAndDataset(t, ref)
	data := legacyJournal(t)
	rs := legacyJournalResponses()
	first := len(data) - len(journalRecord(t, data, 0)) // record 0's length
	if err := s.PutResponses(ctx, rs[:1]); err != nil {
		t.Fatal(err)
	}
	if err := ref.PutResponses(ctx, rs); err != nil {
		t.Fatal(err)
	}
	torn := append(slices.Clone(data), data[:first-2]...)
	leaveJournal(t, s, "dead", int64(first), torn)
	l, err := s.AcquireStudy(ctx, "tiny", 0, "j", testBank)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	leaveJournal(t, s, l.token, 0, data) // a live run's (an older prism)
	path := s.path
	s.Close()

	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if d, want := dump(t, s2), dump(t, ref); !slices.Equal(d, want) {
		t.Fatalf("recovered:\n%s\nwant:\n%s", strings.Join(d, "\n"), strings.Join(want, "\n"))
	}
	if rows, files := journalLeft(t, s2); rows != 1 || len(files) != 1 || !strings.HasSuffix(files[0], l.token) {
		t.Errorf("after the open: %d journal rows, files %v; want only the live run's", rows, files)
	}
	s3, err := Open(ctx, path) // folds nothing twice
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	if d, want := dump(t, s3), dump(t, ref); !slices.Equal(d, want) {
		t.Fatal("a second open changed the tables")
	}
}

// journalRecord returns data from record i on.
func journalRecord(t *testing.T, data []byte, i int) []byte {
	t.Helper()
	for range i + 1 {
		if len(data) < 8 {
			t.Fatal("journal too short")
		}
		n := int(data[0]) | int(data[1])<<8 | int(data[2])<<16 | int(data[3])<<24
		data = data[8+n:]
	}
	return data
}

// A leftover journal the tables refuse as a whole (a request whose key
// changed under the same coordinates) is folded response by response:
// the refused one is dropped and the others kept.
func TestLeftoverJournalDropsOnlyWhatTheTablesRefuse(t *testing.T) {
	ctx := context.Background()
	s, ref := openTemp(t), openTemp(t)
	seedJudgeAndDataset(t, s)
	seedJudgeAndDataset(t, ref)
	rs := legacyJournalResponses()
	clash := rs[2]
	clash.Key = keyOf("c2", "a", "other")
	if err := s.PutResponses(ctx, []Response{clash}); err != nil {
		t.Fatal(err)
	}
	if err := ref.PutResponses(ctx, []Response{clash, rs[0]}); err != nil {
		t.Fatal(err)
	}
	leaveJournal(t, s, "dead", 0, legacyJournal(t))
	if err := s.recoverJournals(ctx); err != nil {
		t.Fatal(err)
	}
	if d, want := dump(t, s), dump(t, ref); !slices.Equal(d, want) {
		t.Fatalf("recovered:\n%s\nwant:\n%s", strings.Join(d, "\n"), strings.Join(want, "\n"))
	}
	if rows, files := journalLeft(t, s); rows != 0 || len(files) != 0 {
		t.Errorf("after recovery: %d journal rows, files %v", rows, files)
	}
}

// A read-only open of a workspace with a leftover journal sees its
// answers: the journal is folded through a writable open first, as
// SQLite rolls back a hot journal for a reader.
func TestReadOnlyOpenSeesALeftoverJournal(t *testing.T) {
	ctx := context.Background()
	s, ref := openTemp(t), openTemp(t)
	seedJudgeAndDataset(t, s)
	seedJudgeAndDataset(t, ref)
	if err := ref.PutResponses(ctx, legacyJournalResponses()); err != nil {
		t.Fatal(err)
	}
	leaveJournal(t, s, "dead", 0, legacyJournal(t))
	ro, err := OpenReadOnly(ctx, s.path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if d, want := dump(t, ro), dump(t, ref); !slices.Equal(d, want) {
		t.Fatalf("read-only open:\n%s\nwant:\n%s", strings.Join(d, "\n"), strings.Join(want, "\n"))
	}
}

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
