package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// dump is a workspace's requests and responses, independent of row ids
// and write order: what PutResponses and PutResponseBatch must agree on.
func dump(t *testing.T, s *Store) []string {
	t.Helper()
	rows, err := s.r.QueryContext(context.Background(), `
		SELECT r.key, r.context, r.candidate, r.bank_hash, r.probe, r.wording, r.run,
		       coalesce(p.ok, -1), coalesce(p.raw, ''), coalesce(p.score, -99), coalesce(p.error_kind, ''), coalesce(p.error, ''),
		       coalesce(p.prompt_tokens, 0), coalesce(p.logprobs, '')
		FROM requests r LEFT JOIN responses p ON p.request_id = r.id`)
	out := scanRows(t, rows, err, func(f []any) string { return fmt.Sprint(f) })
	slices.Sort(out)
	return out
}

// seededPair is two workspaces holding the same dataset and judge, for
// tests that write the same responses two ways, and a random source.
func seededPair(t *testing.T, seed1, seed2 uint64) (a, b *Store, rng *rand.Rand) {
	t.Helper()
	a, b = openTemp(t), openTemp(t)
	seedJudgeAndDataset(t, a)
	seedJudgeAndDataset(t, b)
	return a, b, rand.New(rand.NewPCG(seed1, seed2))
}

// testCands and testProbes are coordinates of tinyDataset's candidates
// and of probes those tests draw from.
var (
	testCands  = [][2]string{{"c2", "b"}, {"c2", "a"}, {"c1", "x"}}
	testProbes = []string{"baseline", "len:+", "len:-", "neutral:x"}
)

// PutResponseBatch stores what PutResponses stores: new requests,
// requests recorded before (by a failure, or earlier in the same batch),
// first answers standing over later ones, failures always added, across
// chunk boundaries.
func TestPutResponseBatchEqualsPutResponses(t *testing.T) {
	ctx := context.Background()
	a, b, rng := seededPair(t, 1, 2)
	cands, probes := testCands, testProbes
	for round := range 4 {
		var rs []Response
		for range 3*64 + 17 {
			c := cands[rng.IntN(len(cands))]
			p := probes[rng.IntN(len(probes))]
			run := fmt.Sprint(rng.IntN(40))
			if rng.IntN(4) == 0 {
				rs = append(rs, failure(c[0], c[1], p, run, "timeout"))
			} else {
				rs = append(rs, answer(c[0], c[1], p, run, float64(rng.IntN(10)+round)))
			}
		}
		if err := a.PutResponses(ctx, rs); err != nil {
			t.Fatal(err)
		}
		if err := b.PutResponseBatch(ctx, rs); err != nil {
			t.Fatal(err)
		}
	}
	da, db := dump(t, a), dump(t, b)
	if !slices.Equal(da, db) {
		t.Fatalf("PutResponses stored %d rows, PutResponseBatch %d; they differ", len(da), len(db))
	}
	if pa, _ := a.Progress(ctx, "tiny", "j", testBank); pa.Failures == 0 || pa.Answered == 0 {
		t.Fatalf("progress %+v: want answers and failures", pa)
	}
}

// PutResponseBatch refuses what PutResponses refuses, naming the response,
// and stores nothing of a refused batch.
func TestPutResponseBatchRejects(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	putRefusedBatches(t, s, "PutResponseBatch", func(rs []Response) error { return s.PutResponseBatch(ctx, rs) })
}

// putRefusedBatches stores one answer with put, then puts each of
// rejectCases after a good response, and checks that each is refused with
// an error mentioning its reason and every one of also, and that the
// refused batches left no row. It returns the rows stored.
func putRefusedBatches(t *testing.T, s *Store, name string, put func([]Response) error, also ...string) []string {
	t.Helper()
	if err := put([]Response{answer("c1", "x", "baseline", "0", 3)}); err != nil {
		t.Fatal(err)
	}
	before := dump(t, s)
	for _, tc := range rejectCases() {
		err := put([]Response{answer("c2", "a", "baseline", "7", 1), tc.r})
		ok := err != nil && strings.Contains(err.Error(), tc.want)
		for _, a := range also {
			ok = ok && strings.Contains(err.Error(), a)
		}
		if !ok {
			t.Errorf("%s: err = %v, want it to mention %q and %q", name, err, tc.want, also)
		}
	}
	if after := dump(t, s); !slices.Equal(before, after) {
		t.Errorf("refused batches left rows: %d before, %d after", len(before), len(after))
	}
	return before
}
