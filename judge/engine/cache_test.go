package engine

import (
	"sync"
	"testing"

	"github.com/prism-eval/prism/model/store"
)

// A server judge's cached answers are kept without a call, store.BatchSize
// to an append to the journal, and the study holds them all.
func TestServerCacheHitsAreKeptInBatches(t *testing.T) {
	s := newChatServer(t)
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := serverSpec(t, s, d, 1, Limits{Concurrency: 2})
	if _, _, err := runToEnd(t, st, spec, Options{}); err != nil {
		t.Fatal(err)
	}
	calls, _ := s.counts()
	spec.JudgeName = "srv-copy"
	var mu sync.Mutex
	var appends []int
	p, sum, err := runToEnd(t, st, spec, Options{committed: func(n int) {
		mu.Lock()
		appends = append(appends, n)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	n := len(p.Items)
	if again, _ := s.counts(); len(again) != len(calls) || p.Estimate.CacheHits != n {
		t.Fatalf("%d calls after the cached run, %d before; %d cache hits of %d", len(again), len(calls), p.Estimate.CacheHits, n)
	}
	want := (n + store.BatchSize - 1) / store.BatchSize
	if len(appends) != want || appends[0] != min(n, store.BatchSize) {
		t.Errorf("%d cached answers kept by appends of %v, want %d of at most %d", n, appends, want, store.BatchSize)
	}
	if sum.CacheHits != n || sum.Stored != n || sum.Study.Answered != n {
		t.Errorf("cache hits %d, stored %d, the study holds %d; want %d", sum.CacheHits, sum.Stored, sum.Study.Answered, n)
	}
}
