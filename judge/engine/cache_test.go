package engine

import (
	"sync"
	"testing"
)

// A server judge's cached answers are kept without a call, by the run's
// one writer in transactions of at most FlushEvery (how many arrive
// before each commit depends on scheduling), and the study holds them
// all.
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
	total := 0
	for _, a := range appends {
		total += a
		if a < 1 || a > FlushEvery {
			t.Errorf("a transaction of %d answers, want 1 to %d", a, FlushEvery)
		}
	}
	if total != n {
		t.Errorf("%d cached answers committed by transactions of %v, want %d in all", n, appends, n)
	}
	if sum.CacheHits != n || sum.Stored != n || sum.Study.Answered != n {
		t.Errorf("cache hits %d, stored %d, the study holds %d; want %d", sum.CacheHits, sum.Stored, sum.Study.Answered, n)
	}
}
