package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model/store"
)

// The store side of a run: its answers queued for the writer, recorded
// in its progress and events, committed in grouped transactions, and
// the lease it keeps while it writes.

// The writer commits a run's answers in grouped transactions (writer):
// one holds what has arrived, up to FlushEvery responses (Options'
// default) or, when a worker waits for it, what arrived within
// CommitWithin of the first, whichever comes first. The offline
// simulator's workers do not wait for commits, so there the writer is the
// run's bottleneck and every commit rewrites the pages of the request-key
// index it touched, at random: fewer, larger commits write each page
// fewer times. A server judge's workers wait for theirs, so a transaction
// holds the answers that arrived during the previous one.
const FlushEvery = 8192

// CommitWithin bounds how long the writer gathers a transaction a worker
// waits for (a variable for tests).
var CommitWithin = 5 * time.Millisecond

// write is one response for the writer; ack, when not nil, receives once
// the transaction holding it (and every response queued before it) has
// ended.
type write struct {
	one  store.Response   // the response, when many is nil
	many []store.Response // a call's several responses, committed together
	ack  chan<- struct{}
}

// finish queues resp for the writer, waits for its commit when ack is not
// nil, and records it.
func (r *Run) finish(it *Item, resp store.Response, cached bool, ack chan struct{}) {
	r.writes <- write{one: resp, ack: ack}
	if ack != nil {
		<-ack
	}
	r.record(it, resp, cached)
}

// finishCall is finish for the items call i answered (res, err): one
// call may answer several (SAJA's criteria), whose responses go to the
// writer as one write, so that one transaction commits them all.
func (r *Run) finishCall(p *Plan, i int, res judge.Result, err error, ack chan struct{}) {
	members := p.members(i)
	if len(members) == 1 {
		k := members[0]
		r.finish(&p.Items[k], p.memberResponse(k, true, res, err), p.shared(i, k), ack)
		return
	}
	rs := make([]store.Response, len(members)) // the writer's until it is taken
	for m, k := range members {
		rs[m] = p.memberResponse(k, m == 0, res, err)
	}
	r.writes <- write{many: rs, ack: ack}
	if ack != nil {
		<-ack
	}
	for m, k := range members {
		r.record(&p.Items[k], rs[m], p.shared(i, k))
	}
}

// finishCached stores and records the answers of p's pending items that
// its plan found in the cache, without waiting for their commit: they
// cost nothing to find again.
func (r *Run) finishCached(p *Plan) {
	for _, i := range p.Pending {
		if resp, ok := p.Cached[i]; ok {
			resp.Time = time.Now()
			r.finish(&p.Items[i], resp, true, nil)
		}
	}
}

// kept counts responses the store has committed.
func (r *Run) kept(rs []store.Response) {
	answers := 0
	for i := range rs {
		if rs[i].Answered() {
			answers++
		}
	}
	r.mu.Lock()
	r.prog.Written += len(rs)
	r.prog.Stored += answers
	r.mu.Unlock()
	if r.opts.committed != nil {
		r.opts.committed(len(rs))
	}
}

// record updates progress with resp and emits a result (unless
// ProgressOnly).
func (r *Run) record(it *Item, resp store.Response, cached bool) {
	r.mu.Lock()
	p := &r.prog
	p.Done++
	if cached {
		p.CacheHits++
	} else {
		p.Sent++
		p.PromptTokens += int64(resp.PromptTokens)
		p.CachedTokens += int64(resp.CachedTokens)
		p.CompletionTokens += int64(resp.CompletionTokens)
		p.Cost, _ = r.plan.Spec.Prices.Cost(r.plan.Estimate.PriceModel, p.PromptTokens, p.CachedTokens, p.CompletionTokens)
	}
	store.CountOutcome(resp.ErrKind, resp.Score, &p.Answered, &p.Missing, &p.Failed, p.Errors)
	if resp.ErrKind != "" {
		r.errSnap = nil // the snapshots' copy of Errors is stale
	}
	if r.opts.ProgressOnly {
		r.mu.Unlock()
		return
	}
	res := Result{Context: resp.Context, Candidate: resp.Candidate, Probe: resp.Probe,
		Wording: r.plan.wording(it), Run: int(it.Run), Score: resp.Score, Cached: cached,
		ErrKind: resp.ErrKind, Err: resp.Err}
	res.HasScore = resp.ErrKind == "" && !math.IsNaN(resp.Score)
	bk := baseKey{resp.Context, resp.Candidate, int(it.Run)}
	if res.HasScore {
		if resp.Probe == "baseline" {
			r.baselines[bk] = res.Score
		} else if b, ok := r.baselines[bk]; ok {
			res.Delta, res.HasDelta = res.Score-b, true
		}
	}
	// Emitted under the lock (emit never blocks), so events reach the
	// reader in the order their progress and Δ were computed: Done never
	// goes back, and a probe's Δ is set exactly when its baseline's event
	// came first.
	r.emit(Event{Kind: EventResult, Progress: r.snapshotLocked(), Result: res}, true)
	r.mu.Unlock()
}

// emit sends ev without blocking; a dropped result is counted.
func (r *Run) emit(ev Event, count bool) {
	select {
	case r.events <- ev:
	default:
		if count {
			r.dropped.Add(1)
		}
	}
}

// ticker emits a progress snapshot every ProgressInterval.
func (r *Run) ticker(stop <-chan struct{}) {
	t := time.NewTicker(r.opts.ProgressInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			r.mu.Lock()
			r.emitProgressLocked()
			r.mu.Unlock()
		}
	}
}

// emitProgressLocked sends a progress snapshot, in order with result
// events (both are sent under r.mu), unless the run has ended; r.mu is
// held.
func (r *Run) emitProgressLocked() {
	if !r.ended {
		r.emit(Event{Kind: EventProgress, Progress: r.snapshotLocked()}, false)
	}
}

// writer is the run's one write path: every response reaches the tables
// through it, by group commit. It waits for one, takes whatever else has
// already arrived (gather), and writes them in one transaction (SQLite in WAL mode with
// synchronous=NORMAL: a committed transaction survives kill -9,
// docs/store.md). Then it tells the workers waiting for them (a server
// judge's). The offline simulator's workers do not wait (their answers
// cost nothing to redo), so a kill -9 loses at most the responses not yet
// committed. It writes with a context that outlives a cancel, so finished
// work is kept; after a store error it keeps draining and acknowledging
// so workers never block, and the run stops.
func (r *Run) writer() {
	ctx := context.WithoutCancel(r.ctx)
	defer r.rw.Close()
	t := txn{buf: make([]store.Response, 0, r.opts.FlushEvery)}
	var failed bool
	for w := range r.writes {
		t.take(w)
		r.gather(&t)
		if !failed {
			if err := r.rw.Put(ctx, t.buf); err != nil {
				failed = true
				r.stop(fmt.Errorf("store: %w", err))
			} else {
				r.kept(t.buf)
			}
		}
		for _, a := range t.acks {
			a <- struct{}{}
		}
		clear(t.buf) // let the answers' texts go
		t.buf, t.acks = t.buf[:0], t.acks[:0]
	}
}

// txn is the transaction the writer gathers.
type txn struct {
	buf  []store.Response
	acks []chan<- struct{}
}

// gather adds to t the writes already queued, until none is, the
// transaction holds FlushEvery responses or, when a worker waits for it,
// CommitWithin has passed. With no worker waiting (the simulator's) a
// larger transaction is only cheaper: it writes each index page it
// touches once for more answers.
func (r *Run) gather(t *txn) {
	deadline := time.Now().Add(CommitWithin)
	check := 64 // the clock is read every 64 responses or so
	for len(t.buf) < r.opts.FlushEvery {
		select {
		case w, ok := <-r.writes:
			if !ok {
				return
			}
			t.take(w)
		default:
			return
		}
		if len(t.acks) > 0 && len(t.buf) >= check {
			if time.Now().After(deadline) {
				return
			}
			check = len(t.buf) + 64
		}
	}
}

// take adds w to the transaction.
func (t *txn) take(w write) {
	if w.many != nil {
		t.buf = append(t.buf, w.many...)
	} else {
		t.buf = append(t.buf, w.one)
	}
	if w.ack != nil {
		t.acks = append(t.acks, w.ack)
	}
}

// keepLease refreshes the run's lease until stop closes; a lost lease (the
// run stalled past store.LeaseTTL and another took the study over) stops
// the run, so two runs never write one study.
func (r *Run) keepLease(stop <-chan struct{}) {
	t := time.NewTicker(store.LeaseRefresh)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if err := r.lease.Refresh(context.WithoutCancel(r.ctx)); errors.Is(err, store.ErrLeaseLost) {
				r.stop(err)
				return
			}
		}
	}
}
