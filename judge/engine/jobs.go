package engine

import (
	"context"
	"sync"
)

// jobs hands a run's calls to its workers: a worker takes its next call
// itself, under a mutex, from the chunk being sent (take), and the run's
// goroutine only hands over whole chunks, each once its cached answers
// are stored. Before, that goroutine fed the workers a call at a time
// through a channel, so each call a worker received woke it to send the
// next: a goroutine switch, and often a thread woken on the other core,
// for every request (docs/performance.md, "Taking calls").
type jobs struct {
	ctx   context.Context
	ready <-chan *Plan // chunks to send, in order; closed after the last

	mu   sync.Mutex
	cur  *Plan // the chunk being sent
	next int   // cur.Sends[next] is the next call
	done bool
}

// take returns the next call, waiting for the next chunk when this one
// is all handed out; false when none is left or the run has stopped.
func (q *jobs) take() (job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.done {
		if q.cur != nil && q.next < len(q.cur.Sends) {
			jb := job{q.cur, q.cur.Sends[q.next]}
			q.next++
			return jb, true
		}
		select {
		case cp, ok := <-q.ready:
			if ok {
				q.cur, q.next = cp, 0
				continue
			}
			q.done = true
		case <-q.ctx.Done():
			q.done = true
		}
	}
	return job{}, false
}
