package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// A ResponseWriter reused across batches stores what PutResponseBatch
// stores batch by batch: new requests, requests recorded earlier (by a
// failure, in this batch or a previous one), first answers standing,
// failures always added, secrets redacted.
func TestResponseWriterEqualsPutResponseBatch(t *testing.T) {
	ctx := context.Background()
	a, b := openTemp(t), openTemp(t)
	seedJudgeAndDataset(t, a)
	seedJudgeAndDataset(t, b)
	const secret = "plain-opaque-credential-42"
	a.AddSecret(secret)
	b.AddSecret(secret)
	w, err := b.NewResponseWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	cands := [][2]string{{"c2", "b"}, {"c2", "a"}, {"c1", "x"}}
	probes := []string{"baseline", "len:+", "len:-", "neutral:x"}
	for round := range 40 {
		var rs []Response
		for range 1 + rng.IntN(12) { // the small batches of a group commit
			c := cands[rng.IntN(len(cands))]
			p := probes[rng.IntN(len(probes))]
			run := fmt.Sprint(rng.IntN(6))
			if rng.IntN(4) == 0 {
				f := failure(c[0], c[1], p, run, "timeout")
				f.Err = "bad key " + secret
				rs = append(rs, f)
			} else {
				r := answer(c[0], c[1], p, run, float64(rng.IntN(10)+round))
				r.Raw += " " + secret
				rs = append(rs, r)
			}
		}
		if round >= 20 && round%3 == 0 {
			// A second bank: a study the writer creates in a later
			// transaction, after finding the first one by name.
			for i := range rs {
				rs[i].BankHash += "-2"
			}
		}
		if err := a.PutResponseBatch(ctx, rs); err != nil {
			t.Fatal(err)
		}
		if err := w.Put(ctx, rs); err != nil {
			t.Fatal(err)
		}
	}
	da, db := dump(t, a), dump(t, b)
	if len(da) == 0 || !slices.Equal(da, db) {
		t.Fatalf("PutResponseBatch stored %d rows, ResponseWriter %d; they differ", len(da), len(db))
	}
	studies := func(s *Store) []string {
		rows, err := s.r.QueryContext(ctx, `SELECT id, judge_id, dataset_id, bank_hash, first_id, last_id, generation FROM studies ORDER BY id`)
		return scanRows(t, rows, err, func(f []any) string { return fmt.Sprint(f) })
	}
	if sa, sb := studies(a), studies(b); len(sa) != 2 || !slices.Equal(sa, sb) {
		t.Errorf("studies differ:\n%v\n%v", sa, sb)
	}
	if strings.Contains(strings.Join(db, "\n"), secret) {
		t.Error("the writer stored a registered secret")
	}
}

// A ResponseWriter refuses what PutResponseBatch refuses, naming the
// response, stores nothing of a refused batch, and keeps working after.
func TestResponseWriterRejects(t *testing.T) {
	ctx := context.Background()
	s, w := openWriter(t)
	before := putRefusedBatches(t, s, "Put", func(rs []Response) error { return w.Put(ctx, rs) }, "response 1 (")
	if err := w.Put(ctx, []Response{answer("c2", "a", "baseline", "7", 1)}); err != nil {
		t.Fatalf("after refused batches: %v", err)
	}
	if n := len(dump(t, s)); n != len(before)+1 {
		t.Errorf("%d rows after one more answer, want %d", n, len(before)+1)
	}
}

func TestResponseWriterReadOnly(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	path := s.Path()
	s.Close()
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.NewResponseWriter(ctx); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("NewResponseWriter on a read-only store: %v", err)
	}
}

// A ResponseWriter remembers its studies' ids between transactions; a
// study created by a transaction that failed is gone, and its row id may
// go to the next study created, so the writer must forget it.
func TestResponseWriterForgetsStudiesOfAFailedPut(t *testing.T) {
	ctx := context.Background()
	s, w := openWriter(t)
	inBank := func(r Response, bank string) Response { r.BankHash = bank; return r }
	bad := inBank(answer("c2", "b", "baseline", "0", 4), "bankA")
	bad.ErrKind, bad.Err = "", "an error with no kind"
	if err := w.Put(ctx, []Response{inBank(answer("c2", "a", "baseline", "0", 7), "bankA"), bad}); err == nil {
		t.Fatal("a batch holding an invalid response was stored")
	}
	for _, r := range []Response{inBank(answer("c2", "a", "baseline", "0", 5), "bankB"), inBank(answer("c1", "x", "baseline", "0", 3), "bankA")} {
		if err := w.Put(ctx, []Response{r}); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := s.r.QueryContext(ctx, `SELECT s.bank_hash, q.context FROM study_requests q JOIN studies s ON s.id = q.study_id ORDER BY q.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var bank, c string
		if err := rows.Scan(&bank, &c); err != nil {
			t.Fatal(err)
		}
		got = append(got, bank+" "+c)
	}
	if want := []string{"bankB c2", "bankA c1"}; !slices.Equal(got, want) {
		t.Errorf("requests by study %q, want %q", got, want)
	}
}

// openWriter is a new workspace holding a judge and a dataset, and a
// ResponseWriter on it, closed when the test ends.
func openWriter(t *testing.T) (*Store, *ResponseWriter) {
	t.Helper()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	w, err := s.NewResponseWriter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return s, w
}

// Request and response rows written requestChunk and responseChunk per
// statement are the rows, ids and order that one statement per row gives:
// batches of many (new requests, requests stored before, answers to
// answered requests, failures, the same request twice in a chunk)
// against the same responses, in the order a batch writes them
// (writeOrder), one by one.
func TestChunksEqualRowByRow(t *testing.T) {
	ctx := context.Background()
	a, b, rng := seededPair(t, 5, 6)
	cands, probes := testCands, testProbes
	gen := func(n, runs int) []Response {
		var rs []Response
		for k := range n {
			c := cands[rng.IntN(len(cands))]
			p := probes[rng.IntN(len(probes))]
			run := fmt.Sprint(k) // runs == 0: every request new
			if runs > 0 {
				run = fmt.Sprint(rng.IntN(runs))
			}
			r := answer(c[0], c[1], p, run, float64(rng.IntN(10)))
			if rng.IntN(4) == 0 {
				r = failure(c[0], c[1], p, run, "timeout")
			}
			r.Time = time.Unix(1_700_000_000+int64(rng.IntN(1000)), 0)
			rs = append(rs, r)
		}
		return rs
	}
	// Phase 1: every request new (whole chunks of new rows); phase 2: a
	// mix with rows stored in phase 1 (chunks resolved row by row),
	// repeated coordinates included.
	for _, rs := range [][]Response{gen(5*requestChunk+7, 0), gen(6*requestChunk+3, 200)} {
		if err := a.PutResponseBatch(ctx, rs); err != nil {
			t.Fatal(err)
		}
		order := a.writeOrder(rs, nil)
		if order == nil {
			for i := range rs {
				order = append(order, i)
			}
		}
		for _, i := range order {
			if err := b.PutResponseBatch(ctx, rs[i:i+1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	query := func(s *Store, q string) []string {
		r, err := s.r.QueryContext(ctx, q)
		return scanRows(t, r, err, func(f []any) string { return fmt.Sprint(f) })
	}
	for _, q := range []string{
		`SELECT id, request_id, ok, raw, coalesce(score, -99), error_kind, error, created FROM responses ORDER BY id`,
		`SELECT id, study_id, hex(key), context, candidate, probe, wording, run, coalesce(answer, 'NULL'), failures FROM study_requests ORDER BY id`,
		`SELECT id, first_id, last_id FROM studies ORDER BY id`,
	} {
		ra, rb := query(a, q), query(b, q)
		if len(ra) == 0 || !slices.Equal(ra, rb) {
			t.Fatalf("%s\n%d rows in chunks, %d one by one; they differ", q, len(ra), len(rb))
		}
	}
	if n := len(query(a, `SELECT id FROM responses`)); n < 8*responseChunk {
		t.Fatalf("%d responses: too few to fill the chunks", n)
	}
}
