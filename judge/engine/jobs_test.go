package engine

import (
	"context"
	"slices"
	"sync"
	"testing"
)

// Workers taking calls at once get each call of each chunk once, a
// chunk's in order, and the chunks in the order they were handed over.
func TestJobsHandEachCallOnceInOrder(t *testing.T) {
	chunks := []*Plan{{Sends: []int{4, 1, 7}}, {Sends: nil}, {Sends: []int{0, 2}}, {Sends: []int{9}}}
	ready := make(chan *Plan)
	var mu sync.Mutex
	var taken []job
	q := &jobs{ctx: context.Background(), ready: ready}
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				jb, ok := q.take()
				if !ok {
					return
				}
				mu.Lock()
				taken = append(taken, jb)
				mu.Unlock()
			}
		}()
	}
	for _, cp := range chunks {
		ready <- cp
	}
	close(ready)
	wg.Wait()

	// take hands out under q.mu, but the takers append after it: compare
	// as a multiset, and check the order with one taker below.
	want := map[job]int{}
	for _, cp := range chunks {
		for _, i := range cp.Sends {
			want[job{cp, i}]++
		}
	}
	got := map[job]int{}
	for _, jb := range taken {
		got[jb]++
	}
	if len(got) != len(want) || len(taken) != 6 {
		t.Fatalf("took %d calls (%d distinct), want 6", len(taken), len(got))
	}
	for jb, n := range want {
		if got[jb] != n {
			t.Errorf("call %d of chunk %p taken %d times, want %d", jb.item, jb.plan, got[jb], n)
		}
	}

	// One taker: the order is the chunks' and their calls'.
	ready = make(chan *Plan, len(chunks))
	for _, cp := range chunks {
		ready <- cp
	}
	close(ready)
	q = &jobs{ctx: context.Background(), ready: ready}
	var order []int
	for {
		jb, ok := q.take()
		if !ok {
			break
		}
		order = append(order, jb.item)
	}
	if want := []int{4, 1, 7, 0, 2, 9}; !slices.Equal(order, want) {
		t.Errorf("one taker took %v, want %v", order, want)
	}
	if _, ok := q.take(); ok {
		t.Error("a call after the last")
	}
}

// A taker waiting for the next chunk gives up when the run stops.
func TestJobsStopWithTheRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan *Plan) // never sent on
	q := &jobs{ctx: ctx, ready: ready}
	done := make(chan bool)
	go func() {
		_, ok := q.take()
		done <- ok
	}()
	cancel()
	if <-done {
		t.Fatal("took a call from a stopped run")
	}
	if _, ok := q.take(); ok {
		t.Fatal("took a call after the run stopped")
	}
}
