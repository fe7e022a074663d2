package store

import (
	"context"
	"strconv"
	"testing"
)

// checkRequestKeys checks request_keys against study_requests: every row
// up to through has its entry, and every entry is a row's, at or below
// through. It returns through.
func checkRequestKeys(t *testing.T, s *Store) int64 {
	t.Helper()
	if !s.separateKeys() {
		t.Fatalf("schema version %d has no request_keys", s.version)
	}
	var through, missing, stray, above int64
	for _, c := range []struct {
		q   string
		dst *int64
	}{
		{`SELECT through FROM request_keys_state`, &through},
		{`SELECT count(*) FROM study_requests q
		  WHERE q.id <= (SELECT through FROM request_keys_state) AND NOT EXISTS (
		    SELECT 1 FROM request_keys x WHERE x.prefix = substr(CAST(q.key AS BLOB), 1, 8) AND x.run = q.run AND x.id = q.id)`, &missing},
		{`SELECT count(*) FROM request_keys x WHERE NOT EXISTS (
		    SELECT 1 FROM study_requests q WHERE q.id = x.id AND substr(CAST(q.key AS BLOB), 1, 8) = x.prefix AND q.run = x.run)`, &stray},
		{`SELECT count(*) FROM request_keys WHERE id > (SELECT through FROM request_keys_state)`, &above},
	} {
		if err := s.r.QueryRow(c.q).Scan(c.dst); err != nil {
			t.Fatal(err)
		}
	}
	if missing != 0 || stray != 0 || above != 0 {
		t.Errorf("request_keys (through %d): %d rows up to through without an entry, %d entries without their row, %d entries above through",
			through, missing, stray, above)
	}
	return through
}

// maxRequestID is the highest study_requests id (0: none).
func maxRequestID(t *testing.T, s *Store) int64 {
	t.Helper()
	var id int64
	if err := s.r.QueryRow(`SELECT coalesce(max(id), 0) FROM study_requests`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// findsAll checks that st's three look-ups by key find every response of
// rs under its run label, with its score, and no response of gone.
func findsAll(t *testing.T, st *Store, rs, gone []Response) {
	t.Helper()
	ctx := context.Background()
	var want [][2]string
	var keys []string
	for _, r := range append(append([]Response(nil), rs...), gone...) {
		want = append(want, [2]string{r.Key, r.Run})
		keys = append(keys, r.Key)
	}
	cached, err := st.CachedAnswers(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := st.AnsweredRuns(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		got, ok := cached[[2]string{r.Key, r.Run}]
		if !ok || got.Score != r.Score || got.Context != r.Context || got.Dataset != r.Dataset {
			t.Errorf("CachedAnswers %s/%s/%s run %s: %+v, %v", r.Dataset, r.Context, r.Probe, r.Run, got, ok)
		}
		if len(runs[r.Key]) == 0 {
			t.Errorf("AnsweredRuns %s/%s/%s: none", r.Dataset, r.Context, r.Probe)
		}
		reqs, err := st.RequestsByKey(ctx, r.Key, r.Run)
		if err != nil {
			t.Fatal(err)
		}
		if len(reqs) != 1 || reqs[0].Dataset != r.Dataset || reqs[0].Context != r.Context {
			t.Errorf("RequestsByKey %s/%s/%s: %+v", r.Dataset, r.Context, r.Probe, reqs)
		}
	}
	for _, r := range gone {
		if got, ok := cached[[2]string{r.Key, r.Run}]; ok {
			t.Errorf("CachedAnswers found a deleted request: %+v", got)
		}
		if len(runs[r.Key]) != 0 {
			t.Errorf("AnsweredRuns found a deleted request %s/%s/%s: %v", r.Dataset, r.Context, r.Probe, runs[r.Key])
		}
	}
}

// onDataset is rs moved to dataset ds, with keys of their own.
func onDataset(rs []Response, ds string) []Response {
	out := make([]Response, len(rs))
	for i, r := range rs {
		r.Dataset = ds
		r.Key = keyOf(r.Context+"@"+ds, r.Candidate, r.Probe)
		out[i] = r
	}
	return out
}

// TestRequestKeysTail: a run's writes leave the key index alone (its rows
// are the tail); look-ups find the tail's requests whether or not they
// index it; a read-only store scans the tail and writes nothing; a
// writable one indexes it, after which request_keys is exact.
func TestRequestKeysTail(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	path := s.Path()
	first := []Response{answer("c1", "x", "baseline", "0", 3), answer("c2", "a", "baseline", "0", 4), answer("c2", "b", "ATTR:+", "1", 2.5)}
	if err := s.PutResponses(ctx, first); err != nil {
		t.Fatal(err)
	}
	if through := checkRequestKeys(t, s); through != 0 {
		t.Fatalf("writing answers indexed their keys (through %d)", through)
	}
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	findsAll(t, ro, first, nil)
	if through := checkRequestKeys(t, s); through != 0 {
		t.Fatalf("a read-only look-up indexed the tail (through %d)", through)
	}
	findsAll(t, s, first, nil)
	if through, top := checkRequestKeys(t, s), maxRequestID(t, s); through != top {
		t.Fatalf("after a writable look-up through is %d, want the top id %d", through, top)
	}

	// A second run: its rows are a new tail; read-only look-ups find the
	// indexed rows and the tail's together.
	second := []Response{answer("c1", "x", "baseline", "1", 5), answer("c2", "b", "baseline", "0", 1)}
	if err := s.PutResponses(ctx, second); err != nil {
		t.Fatal(err)
	}
	both := append(append([]Response(nil), first...), second...)
	findsAll(t, ro, both, nil)
	findsAll(t, s, both, nil)
	if through, top := checkRequestKeys(t, s), maxRequestID(t, s); through != top {
		t.Fatalf("after the second look-up through is %d, want %d", through, top)
	}
}

// TestRequestKeysAfterDeletingTop: deleting the requests at the top of
// the table takes their entries and brings through down, so that the
// rows SQLite then gives the deleted ids are in the tail and found.
// Without the trigger's update, those rows would count as indexed and
// every look-up would miss them.
func TestRequestKeysAfterDeletingTop(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	path := s.Path()
	if err := s.PutDataset(ctx, tinyDataset("other"), false); err != nil {
		t.Fatal(err)
	}
	base := []Response{answer("c1", "x", "baseline", "0", 3), answer("c2", "a", "baseline", "0", 4), answer("c2", "b", "baseline", "0", 2)}
	if err := s.PutResponses(ctx, base); err != nil {
		t.Fatal(err)
	}
	top := onDataset(base, "other")
	if err := s.PutResponses(ctx, top); err != nil {
		t.Fatal(err)
	}
	findsAll(t, s, append(append([]Response(nil), base...), top...), nil) // indexes everything
	before := maxRequestID(t, s)

	if err := s.DeleteDataset(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	if through, left := checkRequestKeys(t, s), maxRequestID(t, s); through != left {
		t.Fatalf("after deleting the top rows through is %d, want the highest id left, %d", through, left)
	}
	if err := s.PutDataset(ctx, tinyDataset("other"), false); err != nil {
		t.Fatal(err)
	}
	again := onDataset([]Response{answer("c1", "x", "ATTR:-", "0", 1), answer("c2", "a", "ATTR:-", "0", 5), answer("c2", "b", "ATTR:-", "0", 2)}, "other")
	if err := s.PutResponses(ctx, again); err != nil {
		t.Fatal(err)
	}
	if reused := maxRequestID(t, s); reused > before {
		t.Fatalf("the new rows did not reuse the deleted ids (top %d, before %d): the test shows nothing", reused, before)
	}
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	findsAll(t, ro, append(append([]Response(nil), base...), again...), top)
	findsAll(t, s, append(append([]Response(nil), base...), again...), top)
	if through, top := checkRequestKeys(t, s), maxRequestID(t, s); through != top {
		t.Fatalf("through %d, want %d", through, top)
	}
}

// BenchmarkIndexKeys indexes the tail a run of 200 contexts × 16 × 38
// (121,600 requests, the httprun row's) leaves: what the next look-up by
// key does once. Each iteration empties request_keys first, untimed.
func BenchmarkIndexKeys(b *testing.B) {
	ctx := context.Background()
	s := openTemp(b)
	fillStudy(b, s, 200)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if _, err := s.w.ExecContext(ctx, `DELETE FROM request_keys; UPDATE request_keys_state SET through = 0`); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := s.indexKeys(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var n int
	if err := s.r.QueryRow(`SELECT count(*) FROM request_keys`).Scan(&n); err != nil || n != 200*16*38 {
		b.Fatalf("request_keys holds %d entries (%v), want %d", n, err, 200*16*38)
	}
}

// TestRequestKeysManyKeys: look-ups of more keys than one statement
// takes find every one, read-only over the tail (tailChunk a statement)
// and indexed (cachedChunk a statement).
func TestRequestKeysManyKeys(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	path := s.Path()
	var rs []Response
	for i := range cachedChunk + 100 {
		r := answer("c1", "x", "baseline", strconv.Itoa(i), float64(i%10))
		r.Key = keyOf("c1#"+strconv.Itoa(i), "x", "baseline")
		rs = append(rs, r)
	}
	if err := s.PutResponses(ctx, rs); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	for _, c := range []struct {
		name      string
		st        *Store
		wantChunk int
	}{{"read-only, the tail", ro, tailChunk}, {"indexed", s, cachedChunk}} {
		if c.st == s {
			if err := s.indexKeys(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if chunk, err := c.st.keyChunk(ctx); err != nil || chunk != c.wantChunk {
			t.Errorf("%s: statements of %d keys (%v), want %d", c.name, chunk, err, c.wantChunk)
		}
		findsAll(t, c.st, rs, nil)
	}
}
