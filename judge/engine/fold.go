package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prism-eval/prism/model/store"
)

// A server judge's answers are kept by its run's answer journal
// (store.Journal) and folded into the tables by one transaction per
// foldEvery answers, or foldAfter after the first of them, whichever
// comes first: large enough that a fold writes each page of the
// request-key index it touches once for many answers, small enough that
// the tables lag the run by a fraction of a second and a fold's CPU comes
// in short bursts (docs/performance.md, "An answer journal"). When
// foldBacklog answers wait for the folder (the tables are that far
// behind), the workers wait too, so memory stays bounded.
const (
	foldEvery   = 512
	foldAfter   = 100 * time.Millisecond
	foldBacklog = 8 * foldEvery
)

// foldQueue hands journaled answers from the workers (Run.keep) to the
// folder.
type foldQueue struct {
	mu     sync.Mutex
	room   *sync.Cond // signalled when the folder takes the queue
	rs     []store.Response
	end    int64 // the journal's length after the last of rs
	closed bool
	// draining: every request has been handed to a worker, so what is
	// queued goes at once (see drain).
	draining bool
	ready    chan struct{} // (capacity 1) rs grew or the queue closed
}

func newFoldQueue() *foldQueue {
	q := &foldQueue{ready: make(chan struct{}, 1)}
	q.room = sync.NewCond(&q.mu)
	return q
}

// push queues rs, which the journal holds up to end, waiting while the
// queue is full. It wakes the folder only when the queue was empty (the
// folder then sets its foldAfter timer) or has just reached foldEvery:
// waking it for every batch cost a goroutine switch per answer at
// concurrency 128, and put the folder before the worker whose answer
// was kept.
func (q *foldQueue) push(rs []store.Response, end int64) {
	q.mu.Lock()
	for len(q.rs) >= foldBacklog {
		q.room.Wait()
	}
	before := len(q.rs)
	q.rs = append(q.rs, rs...)
	q.end = end
	wake := before == 0 || before < foldEvery && len(q.rs) >= foldEvery
	q.mu.Unlock()
	if wake {
		q.wake()
	}
}

// close tells the folder that nothing more comes.
func (q *foldQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.wake()
}

// drain says that the run has handed its last request to a worker:
// from now on the folder folds whatever is queued as soon as it can,
// rather than waiting for foldEvery answers or foldAfter. The run's last
// answers then arrive over the last round's latency while the tables
// take those before them, and the fold left after the last answer is a
// few answers, not up to foldEvery (a fold of 512 answers at the end
// cost a run at concurrency 128 about 10 ms, docs/performance.md).
func (q *foldQueue) drain() {
	q.mu.Lock()
	q.draining = true
	q.mu.Unlock()
	q.wake()
}

func (q *foldQueue) wake() {
	select {
	case q.ready <- struct{}{}:
	default: // a wake-up is pending
	}
}

// take swaps the queued answers for spare (emptied) when there are some
// and full, due, draining or closed says they should go now; it also
// reports the queue's length and whether it is closed.
func (q *foldQueue) take(spare []store.Response, due bool) (rs []store.Response, end int64, n int, closed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n, closed = len(q.rs), q.closed
	if n > 0 && (n >= foldEvery || due || q.draining || closed) {
		rs, q.rs = q.rs, spare[:0]
		q.room.Broadcast()
		return rs, q.end, n, closed
	}
	return nil, 0, n, closed
}

// folder writes the queued answers into the tables (Journal.Fold) until
// the queue closes and is empty. After a failed fold it folds no more
// (the journal keeps the rest for the next open of the workspace) but
// keeps taking the queue, so the workers never block, and the run stops.
func (r *Run) folder(q *foldQueue) {
	ctx := context.WithoutCancel(r.ctx)
	t := time.NewTimer(foldAfter)
	t.Stop()
	defer t.Stop()
	armed, failed := false, false
	var spare []store.Response
	for {
		due := false
		select {
		case <-q.ready:
		case <-t.C:
			due, armed = true, false
		}
		rs, end, n, closed := q.take(spare, due)
		switch {
		case rs != nil:
			if armed {
				t.Stop()
				armed = false
			}
			if !failed {
				if err := r.journal.Fold(ctx, rs, end); err != nil {
					failed = true
					r.stop(fmt.Errorf("store: %w", err))
				}
			}
			clear(rs) // let the answers' texts go
			spare = rs
			if closed {
				return
			}
		case closed:
			return
		case n > 0 && !armed:
			t.Reset(foldAfter)
			armed = true
		}
	}
}
