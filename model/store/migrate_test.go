package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// version1Workspace builds a workspace at schema version 1 (the first
// migration only) holding the tiny dataset, judge j and one answer.
func version1Workspace(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := open(ctx, path, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := old.Version(ctx); v != 1 {
		t.Fatalf("old workspace at version %d, want 1", v)
	}
	// Today's PutDataset writes a revision (schema 3): lend the column for
	// the seed and take it back, leaving a true version-1 table.
	if _, err := old.w.ExecContext(ctx, "ALTER TABLE datasets ADD COLUMN revision INTEGER NOT NULL DEFAULT 0"); err != nil {
		t.Fatal(err)
	}
	seedJudgeAndDataset(t, old)
	if _, err := old.w.ExecContext(ctx, "ALTER TABLE datasets DROP COLUMN revision"); err != nil {
		t.Fatal(err)
	}
	legacyPut(t, old, []Response{answer("c1", "x", "baseline", "0", 3)})
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMigrateFromVersion1 opens a version-1 workspace with the current
// code: it must be upgraded with the data kept and the later schema usable.
func TestMigrateFromVersion1(t *testing.T) {
	ctx := context.Background()
	path := version1Workspace(t)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.Version(ctx); v != SchemaVersion() {
		t.Fatalf("upgraded workspace at version %d, want %d", v, SchemaVersion())
	}
	got, err := s.Dataset(ctx, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	equalDatasets(t, got, tinyDataset("tiny"))
	// The v2 index serves CachedAnswer.
	if _, ok, err := s.CachedAnswer(ctx, keyOf("c1", "x", "baseline"), "0"); err != nil || !ok {
		t.Fatalf("CachedAnswer after upgrade: ok = %v, err = %v", ok, err)
	}
	// Version 4 dropped the reports table of version 2; version 8 made
	// the one of stored reports.
	if !newReports(t, s) {
		t.Errorf("upgraded workspace has not the reports table of version 8")
	}
	// The v3 column: the old dataset got a revision, and leases work.
	if rev, err := s.DatasetRevision(ctx, "tiny"); err != nil || rev == 0 {
		t.Fatalf("DatasetRevision after upgrade = %d, %v; want a non-zero revision", rev, err)
	}
	l, err := s.AcquireStudy(ctx, "tiny", 0, "j", "bank")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateDropsReports upgrades a version-2 workspace, which has the
// reports table and its index, and checks version 4 removed both.
func TestMigrateDropsReports(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v2.db")
	old, err := open(ctx, path, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n := countSchema(t, old, "reports"); n != 2 {
		t.Fatalf("version-2 workspace has %d reports objects, want the table and its index", n)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !newReports(t, s) {
		t.Errorf("upgraded workspace has not the reports table of version 8")
	}
}

// TestOpenReadOnlyVersion1 reads a version-1 workspace without upgrading
// it: what the read-only commands read lives in version-1 tables.
func TestOpenReadOnlyVersion1(t *testing.T) {
	ctx := context.Background()
	path := version1Workspace(t)
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if v, _ := ro.Version(ctx); v != 1 {
		t.Fatalf("read-only open changed the version to %d", v)
	}
	if infos, err := ro.Datasets(ctx); err != nil || len(infos) != 1 {
		t.Fatalf("Datasets = %v, %v", infos, err)
	}
	if _, err := ro.Judge(ctx, "j"); err != nil {
		t.Fatal(err)
	}
	rows, labels, err := ro.FitInput(ctx, "tiny", "j", "")
	if err != nil || len(rows) != 1 || len(labels) == 0 {
		t.Fatalf("FitInput = %d rows, %d labels, %v", len(rows), len(labels), err)
	}
	if p, err := ro.Progress(ctx, "tiny", "j", ""); err != nil || p.Answered != 1 {
		t.Fatalf("Progress = %+v, %v", p, err)
	}
}

// countSchema counts the tables and indexes whose name starts with prefix.
// newReports reports whether s has version 8's reports table (with its
// inputs column) and its one index, and no other reports object.
func newReports(t *testing.T, s *Store) bool {
	t.Helper()
	var n int
	if err := s.r.QueryRowContext(context.Background(), "SELECT count(*) FROM pragma_table_info('reports') WHERE name = 'inputs'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1 && countSchema(t, s, "reports") == 2
}

func countSchema(t *testing.T, s *Store, prefix string) int {
	t.Helper()
	var n int
	if err := s.r.QueryRowContext(context.Background(), "SELECT count(*) FROM sqlite_schema WHERE name LIKE ? || '%'", prefix).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestMigrationsAreNumberedInOrder(t *testing.T) {
	if len(migrations) < 2 {
		t.Fatalf("%d migrations, want at least 2", len(migrations))
	}
	for i, m := range migrations {
		if m.version != i+1 || m.sql == "" {
			t.Errorf("migration %d: version %d, %d bytes", i, m.version, len(m.sql))
		}
	}
}

// version4Rows are responses covering what a version-4 workspace can
// hold: answers with scores that have no short decimal form, minus zero,
// an answer without a score, failures before and after answers, a second
// answer (ignored), repeats, two banks, keys that are not RequestKeys (a
// short text, upper-case hex) and an import judge's scores (no bank).
func version4Rows() (rs []Response, requestsOnly []Request) {
	a := func(c, k, probe, run string, score float64) Response { return answer(c, k, probe, run, score) }
	other := func(r Response) Response { r.BankHash = "otherbank"; return r }
	noScore := answer("c2", "a", "ATTR:+", "0", 0)
	noScore.Score, noScore.Raw = math.NaN(), "no number here"
	textKey := answer("c1", "x", "neutral:n", "0", 2)
	textKey.Key = "k-text"
	upperKey := answer("c1", "x", "neutral:m", "0", 3)
	upperKey.Key = strings.ToUpper(keyOf("c1", "x", "neutral:m"))
	imported := a("c2", "b", "baseline", "", 4.25)
	imported.Judge, imported.BankHash, imported.Key, imported.Wording = "imp", "", "imp-key", ""
	rs = []Response{
		a("c2", "b", "baseline", "0", 0.1+0.2),
		a("c2", "b", "baseline", "1", 1e-300),
		a("c2", "a", "baseline", "0", math.Copysign(0, -1)),
		failure("c2", "a", "ATTR:-", "0", "timeout"),
		failure("c2", "a", "ATTR:-", "0", "http-429"),
		a("c2", "a", "ATTR:-", "0", 3.5),
		failure("c2", "a", "ATTR:-", "0", "timeout"), // after the answer: kept, counted
		a("c2", "a", "ATTR:-", "0", 1),               // a second answer: ignored
		noScore,
		failure("c1", "x", "baseline", "0", "parse"), // never answered
		textKey, upperKey,
		other(a("c2", "b", "baseline", "0", 5)),
		other(failure("c1", "x", "baseline", "0", "timeout")),
		imported,
	}
	pending := req("c1", "x", "ATTR:+", "0")
	return rs, []Request{pending}
}

// studyReadings is everything the readers report about the version-4
// rows, spelled so that equal readings print equal (NaN included) and
// scores print with their bits.
func studyReadings(t *testing.T, s *Store) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	for _, st := range []struct{ judge, bank string }{{"j", testBank}, {"j", "otherbank"}, {"j", ""}, {"imp", testBank}, {"imp", ""}} {
		rows, err := s.Scores(ctx, "tiny", st.judge, st.bank)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "Scores %s %q:\n", st.judge, st.bank)
		for _, r := range rows {
			fmt.Fprintf(&b, "  %s/%s %s %s %s missing=%v bits=%016x\n", r.Context, r.Candidate, r.Probe, r.Wording, r.Run, r.Missing, math.Float64bits(r.Score))
		}
		p, err := s.Progress(ctx, "tiny", st.judge, st.bank)
		if err != nil {
			t.Fatal(err)
		}
		u, err := s.Usage(ctx, "tiny", st.judge, st.bank)
		if err != nil {
			t.Fatal(err)
		}
		reps, err := s.Replies(ctx, "tiny", st.judge, st.bank, "c2", "a")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "Progress %+v\nUsage %+v\nReplies %v\n", p, u, reps)
		if st.bank != "" {
			a, err := s.Answered(ctx, st.judge, "tiny", st.bank)
			if err != nil {
				t.Fatal(err)
			}
			var have []string
			a.Each(func(c, k, probe, w, run string) { have = append(have, c+"/"+k+" "+probe+" "+w+" "+run) })
			slices.Sort(have)
			fmt.Fprintf(&b, "Answered %v\n", have)
		}
	}
	for _, judge := range []string{"j", "imp"} {
		f, err := s.Failures(ctx, "tiny", judge)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "Failures %s %v\n", judge, f)
	}
	studies, err := s.Studies(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range studies {
		// What a workspace before version 5 cannot tell: its run labels
		// and write generations.
		studies[i].Runs, studies[i].Generation = nil, 0
	}
	fmt.Fprintf(&b, "Studies %+v\n", studies)
	hashes, err := s.StudyHashes(ctx, "tiny", "j")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "StudyHashes %v\n", hashes)
	keys := []string{keyOf("c2", "b", "baseline"), keyOf("c2", "a", "ATTR:-"), "k-text", strings.ToUpper(keyOf("c1", "x", "neutral:m")), keyOf("c1", "x", "baseline"), "imp-key"}
	var pairs [][2]string
	for _, k := range keys {
		for _, run := range []string{"0", "1", ""} {
			pairs = append(pairs, [2]string{k, run})
			byKey, err := s.RequestsByKey(ctx, k, run)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "RequestsByKey %s %q %+v\n", k, run, byKey)
		}
	}
	cached, err := s.CachedAnswers(ctx, pairs)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pairs {
		if r, ok := cached[p]; ok {
			fmt.Fprintf(&b, "Cached %v %+v bits=%016x\n", p, r.Request, math.Float64bits(r.Score))
		}
	}
	runs, err := s.AnsweredRuns(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "AnsweredRuns %v\n", runs)
	return b.String()
}

// openVersion4 creates a version-4 workspace at path as the code of
// version 4 wrote it, with the seeded judge and dataset and a second,
// imported judge.
func openVersion4(t *testing.T, path string) *Store {
	t.Helper()
	old, err := open(context.Background(), path, 4)
	if err != nil {
		t.Fatal(err)
	}
	seedJudgeAndDataset(t, old)
	if _, err := old.w.Exec(`INSERT INTO judges(name, backend, model, base_url, params, created) VALUES ('imp', 'import', '', '', '{}', '2025')`); err != nil {
		t.Fatal(err)
	}
	return old
}

// TestMigrateVersion4ToCompact builds a version-4 workspace as the code
// of version 4 wrote it, reads it (read-only, without upgrading), then
// upgrades it: every reader must report the same, and every request and
// response row must be carried over unchanged.
func TestMigrateVersion4ToCompact(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v4.db")
	old := openVersion4(t, path)
	rs, pending := version4Rows()
	legacyPut(t, old, rs)
	legacyPut(t, old, []Response{{Request: pending[0]}}, true)
	reqsBefore, respBefore := requestDump(t, old.r), responseDump(t, old.r)
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if ro.compact() {
		t.Fatal("a version-4 workspace read as compact")
	}
	before := studyReadings(t, ro)
	ro.Close()
	for _, want := range []string{"missing=true", "bits=0000000000000000", fmt.Sprintf("bits=%016x", math.Float64bits(0.1+0.2)), "k-text", "Failures j map[http-429:1 parse:1 timeout:3]"} {
		if !strings.Contains(before, want) {
			t.Fatalf("the version-4 fixture lacks %q:\n%s", want, before)
		}
	}

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.Version(ctx); v != len(migrations) || !s.compact() {
		t.Fatalf("upgraded to version %d, compact %v", v, s.compact())
	}
	if after := studyReadings(t, s); after != before {
		t.Errorf("readings differ after the upgrade:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if got := requestDump(t, s.r); !slices.Equal(got, reqsBefore) {
		t.Errorf("requests after the upgrade:\n%s\nbefore:\n%s", strings.Join(got, "\n"), strings.Join(reqsBefore, "\n"))
	}
	if got := responseDump(t, s.r); !slices.Equal(got, respBefore) {
		t.Errorf("responses after the upgrade:\n%s\nbefore:\n%s", strings.Join(got, "\n"), strings.Join(respBefore, "\n"))
	}
	checkCompactColumns(t, s)
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	var fkErrors int
	if err := s.w.QueryRowContext(ctx, "SELECT count(*) FROM pragma_foreign_key_check").Scan(&fkErrors); err != nil || fkErrors != 0 {
		t.Fatalf("foreign key check: %d rows, %v", fkErrors, err)
	}

	// The upgraded workspace takes new writes: the pending request is
	// answered, the never-answered one too, a failure is added to an
	// answered one, minus zero reads back as SQLite reads it (zero); the columns stay in step with the responses.
	more := []Response{answer("c1", "x", "ATTR:+", "0", 2), answer("c1", "x", "baseline", "0", 1), failure("c2", "b", "baseline", "0", "timeout"), answer("c2", "b", "baseline", "0", 9),
		answer("c1", "x", "ATTR:-", "0", math.Copysign(0, -1))}
	if err := s.PutResponses(ctx, more); err != nil {
		t.Fatal(err)
	}
	checkCompactColumns(t, s)
	if got, want := s.mustScores(t, "tiny", "j", ""), scoresBySQL(t, s, "tiny", "j", ""); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Scores after new writes:\n%v\nwant\n%v", got, want)
	}
}

func (s *Store) mustScores(t *testing.T, dataset, judge, bank string) any {
	t.Helper()
	rows, err := s.Scores(context.Background(), dataset, judge, bank)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// checkCompactColumns checks the columns version 5 keeps beside the
// responses against the responses themselves: a request's answer column
// is its answer's score, its failures its failed attempts, and a study's
// id bounds hold all its requests.
func checkCompactColumns(t *testing.T, s *Store) {
	t.Helper()
	rows, err := s.r.Query(`
		SELECT q.id, q.answer, q.failures,
		       (SELECT count(*) FROM responses p WHERE p.request_id = q.id AND p.ok = 1),
		       (SELECT p.score FROM responses p WHERE p.request_id = q.id AND p.ok = 1),
		       (SELECT count(*) FROM responses p WHERE p.request_id = q.id AND p.ok = 0),
		       q.id BETWEEN st.first_id AND st.last_id
		FROM study_requests q JOIN studies st ON st.id = q.study_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id, failures, answers, failed int64
		var stored, score any
		var inRange bool
		if err := rows.Scan(&id, &stored, &failures, &answers, &score, &failed, &inRange); err != nil {
			t.Fatal(err)
		}
		n++
		switch {
		case answers > 1:
			t.Errorf("request %d has %d answers", id, answers)
		case answers == 0 && stored != nil:
			t.Errorf("request %d: answer column %v without an answer", id, stored)
		case answers == 1 && stored == nil:
			t.Errorf("request %d: answered, answer column NULL", id)
		case answers == 1:
			want := ""
			if f, ok := score.(float64); ok {
				want = responseAnswer(f)
			} else if i, ok := score.(int64); ok {
				want = responseAnswer(float64(i))
			}
			if stored.(string) != want {
				t.Errorf("request %d: answer column %q, score %v", id, stored, score)
			}
		}
		if failures != failed {
			t.Errorf("request %d: failures column %d, %d failed responses", id, failures, failed)
		}
		if !inRange {
			t.Errorf("request %d outside its study's id bounds", id)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no study_requests rows")
	}
	checkRequestKeys(t, s)
}

const migrateCrashEnv = "PRISM_STORE_MIGRATE_CRASH"

// TestHelperMigrator is not a test on its own: TestMigrationKilledMidway
// runs the test binary again with only this function. It upgrades the
// workspace and, once the upgrade's SQL and Go step have run inside its
// transaction, says so and waits to be killed before the commit.
func TestHelperMigrator(t *testing.T) {
	path := os.Getenv(migrateCrashEnv)
	if path == "" {
		t.Skip("helper process for TestMigrationKilledMidway")
	}
	migrationSteps[5] = func(ctx context.Context, tx *sql.Tx) error {
		if err := fillAnswers(ctx, tx); err != nil {
			return err
		}
		fmt.Println("filled")
		select {} // killed here, the transaction open
	}
	// A page cache of a few pages (kept in the file's header, so the
	// upgrade's connection takes it): the upgrade spills uncommitted
	// pages into the WAL as a large workspace's does, with a small one.
	db, err := sql.Open("sqlite", path)
	if err == nil {
		_, err = db.Exec("PRAGMA default_cache_size = 8")
		db.Close()
	}
	if err != nil {
		fmt.Println("cache size:", err)
		os.Exit(3)
	}
	_, err = Open(context.Background(), path)
	fmt.Println("open returned:", err)
	os.Exit(3)
}

// TestMigrationKilledMidway SIGKILLs a process in the middle of the
// upgrade to version 5 (all of its work done in the transaction, not
// committed): the file must still be a whole version-4 workspace, and
// upgrade cleanly afterwards.
func TestMigrationKilledMidway(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v4.db")
	old := openVersion4(t, path)
	rs, _ := version4Rows()
	// Enough rows that the migration's transaction, with the small page
	// cache the helper gives it, spills pages into the WAL before its
	// commit (checked below): a couple of hundred, not thousands, so the test
	// stays quick under -race.
	for i := range 200 {
		r := answer("c2", "b", "baseline", strconv.Itoa(i+10), float64(i%7)/3)
		r.Raw = strings.Repeat("r", 300)
		rs = append(rs, r)
	}
	legacyPut(t, old, rs)
	reqsBefore, respBefore := requestDump(t, old.r), responseDump(t, old.r)
	old.Close()
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	before := studyReadings(t, ro)
	ro.Close()

	cmd, lines := startHelper(t, "TestHelperMigrator", migrateCrashEnv+"="+path)
	for lines.Scan() && lines.Text() != "filled" {
		t.Logf("migrator: %s", lines.Text())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("migrator was not killed (wait: %v)", err)
	}
	// The killed transaction left uncommitted frames in the WAL (its
	// header alone is 32 bytes), which the opens below must ignore.
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() <= 32 {
		t.Fatalf("the killed migration spilled nothing into the WAL (%v, %v): the test would not test that", fi, err)
	}

	ro, err = OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatalf("after the kill: %v", err)
	}
	if v, _ := ro.Version(ctx); v != 4 {
		t.Fatalf("after the kill the workspace is at version %d, want 4", v)
	}
	if got := requestDump(t, ro.r); !slices.Equal(got, reqsBefore) {
		t.Error("requests changed by the killed upgrade")
	}
	if got := responseDump(t, ro.r); !slices.Equal(got, respBefore) {
		t.Error("responses changed by the killed upgrade")
	}
	ro.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	if after := studyReadings(t, s); after != before {
		t.Errorf("readings differ after the upgrade that followed the kill:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if got := responseDump(t, s.r); !slices.Equal(got, respBefore) {
		t.Error("responses differ after the upgrade that followed the kill")
	}
	checkCompactColumns(t, s)
}
