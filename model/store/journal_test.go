package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// journalFixture is a workspace with a run's lease and its journal, and a
// second workspace holding the same responses written directly, to
// compare with.
type journalFixture struct {
	s, ref *Store
	lease  *Lease
	j      *Journal
}

func newJournalFixture(t *testing.T) *journalFixture {
	t.Helper()
	ctx := context.Background()
	f := &journalFixture{s: openTemp(t), ref: openTemp(t)}
	seedJudgeAndDataset(t, f.s)
	seedJudgeAndDataset(t, f.ref)
	var err error
	if f.lease, err = f.s.AcquireStudy(ctx, "tiny", 0, "j", testBank); err != nil {
		t.Fatal(err)
	}
	if f.j, err = f.s.OpenJournal(ctx, f.lease); err != nil {
		t.Fatal(err)
	}
	return f
}

// put appends rs to the journal and writes them to the reference.
func (f *journalFixture) put(t *testing.T, rs ...Response) int64 {
	t.Helper()
	end, err := f.j.Append(rs)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ref.PutResponses(context.Background(), rs); err != nil {
		t.Fatal(err)
	}
	return end
}

// die makes the fixture's run look killed: its lease no longer held by a
// live process (the pid check sees this process, so the lease's token
// is dropped from the ones it holds, as the death of the process would).
func (f *journalFixture) die() {
	held.Lock()
	delete(held.m, f.lease.token)
	held.Unlock()
}

func journalRows(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	if err := s.r.QueryRow("SELECT count(*) FROM journals").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func journalFiles(t *testing.T, s *Store) []string {
	t.Helper()
	m, err := filepath.Glob(s.path + ".answers-*")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Appended answers are in the file at once and in the tables after
// Fold; Close removes the journal's row and file. What the tables hold
// is what writing the responses directly stores.
func TestJournalFoldsWhatItKeeps(t *testing.T) {
	ctx := context.Background()
	f := newJournalFixture(t)
	const secret = "plain-opaque-credential-42"
	f.s.AddSecret(secret)
	f.ref.AddSecret(secret)
	a := answer("c1", "x", "baseline", "0", 4)
	a.Raw += " " + secret
	b := failure("c2", "a", "baseline", "0", "timeout")
	b.Err += " key=" + secret
	batch1 := []Response{a, b}
	end1 := f.put(t, batch1...)
	batch2 := []Response{answer("c2", "a", "baseline", "0", 3), answer("c2", "b", "len:+", "0", 5)}
	end2 := f.put(t, batch2...)

	data, err := os.ReadFile(f.j.path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != end2 || end1 >= end2 {
		t.Fatalf("journal holds %d bytes, Append said %d then %d", len(data), end1, end2)
	}
	if strings.Contains(string(data), secret) {
		t.Error("the journal holds a registered secret")
	}
	if got, _, err := decodeJournal(data); err != nil || len(got) != 4 {
		t.Fatalf("journal decodes to %d responses (%v), want 4", len(got), err)
	}
	if d := dump(t, f.s); len(d) != 0 {
		t.Fatalf("the tables hold %d rows before a fold", len(d))
	}
	if err := f.j.Fold(ctx, batch1, end1); err != nil {
		t.Fatal(err)
	}
	if err := f.j.Fold(ctx, batch2, end2); err != nil {
		t.Fatal(err)
	}
	if err := f.j.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if d, want := dump(t, f.s), dump(t, f.ref); !slices.Equal(d, want) {
		t.Fatalf("folded:\n%s\nwritten directly:\n%s", strings.Join(d, "\n"), strings.Join(want, "\n"))
	}
	if n := journalRows(t, f.s); n != 0 {
		t.Errorf("%d journal rows after Close", n)
	}
	if m := journalFiles(t, f.s); len(m) != 0 {
		t.Errorf("journal files left after Close: %v", m)
	}
}

// A killed run's journal (appended, partly folded, its last record torn
// by the kill) is folded by the next open of the workspace: every whole
// record not folded yet, once, and nothing of the torn one.
func TestKilledRunsJournalIsFoldedOnOpen(t *testing.T) {
	ctx := context.Background()
	f := newJournalFixture(t)
	first := []Response{answer("c1", "x", "baseline", "0", 4), failure("c2", "a", "baseline", "0", "timeout")}
	end := f.put(t, first...)
	if err := f.j.Fold(ctx, first, end); err != nil {
		t.Fatal(err)
	}
	f.put(t, answer("c2", "a", "baseline", "0", 3), failure("c2", "b", "len:+", "0", "http-500"))
	torn := appendJournalRecord(nil, &Response{Request: req("c2", "b", "len:-", "0"), Score: 9})
	fh, err := os.OpenFile(f.j.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.Write(torn[:len(torn)-3]); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	path := f.s.path

	// While the run lives, another open leaves its journal alone.
	live, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(dump(t, live)); n != 2 || journalRows(t, live) != 1 {
		t.Fatalf("an open beside a live run folded its journal: %d rows, %d journals", n, journalRows(t, live))
	}
	live.Close()

	f.die()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if d, want := dump(t, s2), dump(t, f.ref); !slices.Equal(d, want) {
		t.Fatalf("recovered:\n%s\nwant:\n%s", strings.Join(d, "\n"), strings.Join(want, "\n"))
	}
	if n := journalRows(t, s2); n != 0 {
		t.Errorf("%d journal rows after recovery", n)
	}
	if m := journalFiles(t, s2); len(m) != 0 {
		t.Errorf("journal files left after recovery: %v", m)
	}
	// The killed run's own later fold finds its journal taken.
	if err := f.j.Fold(ctx, []Response{answer("c2", "b", "len:-", "0", 1)}, end+1); !errors.Is(err, ErrJournalTaken) {
		t.Errorf("fold after recovery: %v, want ErrJournalTaken", err)
	}
	// Opening again folds nothing twice.
	s3, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	if d, want := dump(t, s3), dump(t, f.ref); !slices.Equal(d, want) {
		t.Fatal("a second open changed the tables")
	}
}

// A journal the tables refuse as a whole (a request whose key changed
// under the same coordinates) is folded response by response: the
// refused one is dropped, as a run's writer would have refused it, and
// the others are kept.
func TestRecoveryDropsOnlyWhatTheTablesRefuse(t *testing.T) {
	ctx := context.Background()
	f := newJournalFixture(t)
	good := answer("c1", "x", "baseline", "0", 4)
	if err := f.s.PutResponses(ctx, []Response{answer("c2", "a", "baseline", "0", 2)}); err != nil {
		t.Fatal(err)
	}
	bad := answer("c2", "a", "baseline", "0", 3)
	bad.Key = keyOf("c2", "a", "other")
	if _, err := f.j.Append([]Response{good, bad, answer("c2", "b", "baseline", "0", 5)}); err != nil {
		t.Fatal(err)
	}
	f.die()
	if err := f.s.RecoverJournals(ctx); err != nil {
		t.Fatal(err)
	}
	want := []Response{answer("c2", "a", "baseline", "0", 2), good, answer("c2", "b", "baseline", "0", 5)}
	if err := f.ref.PutResponses(ctx, want); err != nil {
		t.Fatal(err)
	}
	if d, w := dump(t, f.s), dump(t, f.ref); !slices.Equal(d, w) {
		t.Fatalf("recovered:\n%s\nwant:\n%s", strings.Join(d, "\n"), strings.Join(w, "\n"))
	}
	if journalRows(t, f.s) != 0 || len(journalFiles(t, f.s)) != 0 {
		t.Error("the journal is left after recovery")
	}
}

// Append refuses what the tables would refuse, keeping nothing of the
// batch, and the journal goes on.
func TestJournalAppendRefuses(t *testing.T) {
	f := newJournalFixture(t)
	noKey := answer("c1", "x", "baseline", "0", 4)
	noKey.Key = ""
	badLogprobs := answer("c1", "x", "baseline", "0", 4)
	badLogprobs.Logprobs = []byte("{")
	errNoKind := failure("c1", "x", "baseline", "0", "")
	for _, r := range []Response{noKey, badLogprobs, errNoKind} {
		if _, err := f.j.Append([]Response{answer("c2", "a", "baseline", "0", 1), r}); err == nil || !strings.Contains(err.Error(), "response 1") {
			t.Errorf("Append(%+v): %v, want an error naming response 1", r.Request, err)
		}
	}
	if fi, err := os.Stat(f.j.path); err != nil || fi.Size() != 0 {
		t.Fatalf("journal after refused appends: %v, %v", fi, err)
	}
	end := f.put(t, answer("c2", "a", "baseline", "0", 1))
	if end == 0 {
		t.Fatal("nothing appended")
	}
}

// A fold that failed leaves the journal to the next open, which folds
// it: nothing appended is lost.
func TestFailedFoldLeavesTheJournal(t *testing.T) {
	ctx := context.Background()
	f := newJournalFixture(t)
	rs := []Response{answer("c1", "x", "baseline", "0", 4)}
	end := f.put(t, rs...)
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := f.j.Fold(canceled, rs, end); err == nil {
		t.Fatal("a fold with a canceled context succeeded")
	}
	if err := f.j.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if journalRows(t, f.s) != 1 || len(journalFiles(t, f.s)) != 1 {
		t.Fatal("Close removed a journal that was not folded")
	}
	if err := f.lease.Release(ctx); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(ctx, f.s.path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if d, w := dump(t, s2), dump(t, f.ref); !slices.Equal(d, w) {
		t.Fatalf("recovered:\n%s\nwant:\n%s", strings.Join(d, "\n"), strings.Join(w, "\n"))
	}
}

// A read-only open after a kill sees what the killed run kept: the
// journal is folded through a writable open first, as SQLite rolls back a
// hot journal for a reader.
func TestReadOnlyOpenSeesAKilledRunsAnswers(t *testing.T) {
	ctx := context.Background()
	f := newJournalFixture(t)
	f.put(t, answer("c1", "x", "baseline", "0", 4), failure("c2", "a", "baseline", "0", "timeout"))
	ro, err := OpenReadOnly(ctx, f.s.path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(dump(t, ro)); n != 0 {
		t.Fatalf("a read-only open beside the live run folded its journal (%d rows)", n)
	}
	ro.Close()
	f.die()
	ro, err = OpenReadOnly(ctx, f.s.path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if d, want := dump(t, ro), dump(t, f.ref); !slices.Equal(d, want) {
		t.Fatalf("read-only open after the kill:\n%s\nwant:\n%s", strings.Join(d, "\n"), strings.Join(want, "\n"))
	}
	if len(journalFiles(t, ro)) != 0 {
		t.Error("the journal file is left")
	}
}
