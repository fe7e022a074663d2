package store

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

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
