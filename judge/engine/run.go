package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/backend"
	"github.com/prism-eval/prism/judge/openai"
	"github.com/prism-eval/prism/model/store"
)

// Options tune a Run; the zero value is ready to use.
type Options struct {
	Limiter          *Limiter      // nil: NewLimiter(plan.Spec.Limits)
	FlushEvery       int           // most responses per write transaction (≤ 0: FlushEvery)
	ProgressInterval time.Duration // between progress events (≤ 0: 100 ms)
	EventBuffer      int           // capacity of the Events channel (≤ 0: 4096)
	// BreakAfter is the circuit breaker: after this many requests in a row
	// failed for transport reasons (network, timeout, server error) with
	// no answer between them, the run pauses or stops instead of grinding
	// through every request (0: DefaultBreakAfter; < 0: never).
	BreakAfter int
	// PauseOnBreak pauses the run when the breaker trips, with the reason
	// in Progress.PauseReason (for the TUI, where someone can resume);
	// otherwise the run stops with an error wrapping ErrServerDown.
	PauseOnBreak bool
	// ProgressOnly leaves out result events: Events carries a progress
	// snapshot every ProgressInterval and the last one, for a reader of
	// progress alone (prism run's progress line). It saves a snapshot per
	// request and waking the reader for each (docs/performance.md).
	ProgressOnly bool

	// parked, when set (tests), is called each time a worker finds the
	// run paused and is about to wait at the gate: once every worker has
	// parked, no request can start until Resume.
	parked func()
	// committed, when set (tests), is called after each of the writer's
	// transactions with the number of responses it held.
	committed func(n int)
}

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

// DefaultBreakAfter is the circuit breaker's default: more than a full
// round of the default concurrency (8) failing in a row.
const DefaultBreakAfter = 12

// ErrServerDown is wrapped by the error of a run stopped by its circuit
// breaker.
var ErrServerDown = errors.New("the judge's server looks down")

// EventKind tells the two kinds of Event apart.
type EventKind int

const (
	EventProgress EventKind = iota // a progress snapshot
	EventResult                    // one request finished (answered, failed or served from cache)
)

// Event is what a Run streams. Progress is set for both kinds (for a
// result, as of that result).
type Event struct {
	Kind     EventKind
	Progress Progress
	Result   Result // EventResult only
}

// Result is one finished request.
type Result struct {
	Context, Candidate, Probe string
	Wording, Run              int
	Score                     float64 // NaN when none
	HasScore                  bool
	// Delta is Score minus the same candidate's baseline score in the same
	// run, when both are known.
	Delta    float64
	HasDelta bool
	Cached   bool   // stored from an identical earlier answer, not sent
	ErrKind  string // "" for an answer
	Err      string
}

// Progress is a snapshot of a run.
type Progress struct {
	Total     int // requests of the plan still pending when the run started
	Done      int // of those, finished (answered, failed, or from cache)
	Sent      int // sent to the judge and finished
	CacheHits int
	Answered  int
	// Missing counts the answers without a score: a SAJA reply's criteria
	// it did not rate validly (missing cells, docs/rubrics.md).
	Missing  int
	Failed   int
	InFlight int
	Written  int // responses committed, failures included
	Stored   int // answers committed

	PromptTokens, CachedTokens, CompletionTokens int64
	// UsageEstimated counts the calls whose server-reported token usage
	// was implausible and replaced by estimates (judge.CheckUsage).
	UsageEstimated int
	Cost           float64
	Priced         bool
	// Errors counts failed requests by error kind. Snapshots share one
	// copy until the counts change: read it, do not write it.
	Errors map[string]int

	At      time.Time // when this snapshot was taken
	Elapsed time.Duration
	// Active is Elapsed without the time spent paused: Rate and ETA are
	// computed over it, so they stand still while the run is paused.
	Active      time.Duration
	Rate        float64       // sent requests finished per second of active time
	ETA         time.Duration // at that rate (0 when unknown, and once the run has ended)
	Paused      bool
	PauseReason string // why the run paused itself ("" when the user paused it)
	// Waiting says why new requests are held beyond the configured pacing
	// (a server's wait hint) and WaitUntil until when; "" when they are not.
	Waiting   string
	WaitUntil time.Time
	// Retrying names the last transport failure when no answer came since
	// (requests are waiting to be retried); "" otherwise.
	Retrying string
	// OldestSent is when the longest-running request in flight was sent
	// (zero when none is in flight): a server that has gone quiet shows
	// as an old one.
	OldestSent    time.Time
	DroppedEvents int64 // result events dropped because the consumer was slow
}

// Summary is a finished run: its last progress and why it ended.
type Summary struct {
	Progress
	Canceled bool  // Cancel was called or the context ended
	Stopped  error // a judge error that stops runs (auth, config), the breaker, or a store error
	// Study is the study's state read back from the store after the run
	// (requests recorded, answered, failed attempts): what is really
	// stored, whatever happened to the run. StudyErr is set when that
	// read failed.
	Study    store.Progress
	StudyErr error
}

// Run is an acquisition in progress. Its methods are safe for concurrent
// use.
type Run struct {
	plan   *Plan
	st     *store.Store
	judges []judge.Judge
	lim    *Limiter
	opts   Options
	ctx    context.Context
	cancel context.CancelCauseFunc
	events chan Event
	writes chan write // responses for the writer
	done   chan struct{}
	start  time.Time

	mu        sync.Mutex
	prog      Progress
	baselines map[baseKey]float64
	stopped   error
	gate      chan struct{} // closed while running; open while paused
	dropped   atomic.Int64
	summary   Summary
	lease     *store.Lease
	rw        *store.ResponseWriter // the writer's (writer)
	waits     bool                  // workers wait for their answers' commit (a server judge)
	sentAt    []time.Time           // per worker: when its request in flight was sent (zero: none)
	errSnap   map[string]int        // the copy of prog.Errors snapshots share; nil when stale
	streak    int                   // requests failed in a row for transport reasons
	breakAt   int                   // streak that trips the breaker (0: never)
	pausedFor time.Duration         // time spent paused before the current pause
	pausedAt  time.Time             // when the current pause began (while paused)
}

type baseKey struct {
	context, candidate string
	run                int
}

var errCanceled = errors.New("run canceled")

// NewJudges builds one judge per run from cfg: each makes one call per
// request (cfg.Repeats is ignored), and run r samples with seed seed+r so
// that repeats differ (the offline simulator always gets a seed; a server
// only when cfg.Seed is set). Server calls go through lim (when not nil),
// which observes their rate-limit headers.
func NewJudges(cfg judge.Config, repeats int, lim *Limiter, opts ...openai.Option) ([]judge.Judge, error) {
	return newJudges(cfg, repeats, 1, lim, opts...)
}

// newJudges is NewJudges whose judges make samples calls per request
// (averaged: G-Eval's N sampled ratings).
func newJudges(cfg judge.Config, repeats, samples int, lim *Limiter, opts ...openai.Option) ([]judge.Judge, error) {
	if lim != nil {
		opts = append([]openai.Option{openai.WithBaseTransport(lim.Transport(nil))}, opts...)
	}
	out := make([]judge.Judge, max(1, repeats))
	for r := range out {
		j, err := backend.New(runConfig(cfg, r, samples), opts...)
		if err != nil {
			return nil, err
		}
		out[r] = j
	}
	return out, nil
}

// runConfig is the configuration of run r's judge: samples calls per
// request, and seed + r (the offline simulator always gets a seed; a
// server only when cfg.Seed is set), so that runs differ.
func runConfig(cfg judge.Config, r, samples int) judge.Config {
	c := cfg
	c.Repeats = max(1, samples)
	if c.Backend == judge.BackendOffline || c.Backend == "" || c.Seed != nil {
		s := r
		if c.Seed != nil {
			s += *c.Seed
		}
		c.Seed = &s
	}
	return c
}

// Start stores the plan's judge and bank snapshot and starts sending the
// plan's pending requests with judges[run] (a single judge serves every
// run). Answers found in the cache are stored first, without sending.
func Start(ctx context.Context, st *store.Store, judges []judge.Judge, p *Plan, opts Options) (*Run, error) {
	if len(judges) == 0 {
		return nil, errors.New("engine: no judge")
	}
	if len(judges) > 1 && len(judges) < p.Spec.Repeats {
		return nil, fmt.Errorf("engine: %d judges for %d repeats", len(judges), p.Spec.Repeats)
	}
	// One run per study, on the texts it was planned from: the lease
	// refuses a second run and keeps the dataset from changing under this
	// one (docs/engine.md, "Leases").
	lease, err := st.AcquireStudy(ctx, p.Spec.Dataset.Name, p.DatasetRev, p.Spec.JudgeName, p.BankHash)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	release := func() { lease.Release(context.WithoutCancel(ctx)) }
	p.read = nil // the run writes the study: its decode is stale
	if _, err := st.PutJudge(ctx, p.Judge); err != nil {
		release()
		return nil, err
	}
	snap, err := p.snapshot()
	if err != nil {
		release()
		return nil, fmt.Errorf("engine: bank snapshot: %w", err)
	}
	if err := st.PutBank(ctx, snap); err != nil {
		release()
		return nil, err
	}
	if err := st.PlanStudy(ctx, p.StudyPlan()); err != nil {
		release()
		return nil, err
	}
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = FlushEvery
	}
	if opts.ProgressInterval <= 0 {
		opts.ProgressInterval = 100 * time.Millisecond
	}
	if opts.EventBuffer <= 0 {
		opts.EventBuffer = 4096
	}
	lim := opts.Limiter
	if lim == nil {
		lim = NewLimiter(p.Spec.Limits)
	}
	rw, err := st.NewRunWriter(ctx, lease)
	if err != nil {
		release()
		return nil, err
	}
	rctx, cancel := context.WithCancelCause(ctx)
	r := &Run{
		plan: p, st: st, judges: judges, lim: lim, opts: opts, ctx: rctx, cancel: cancel,
		// Room for one transaction: the simulator's workers outrun the
		// writer whatever the room (they only wait when it is full).
		events: make(chan Event, opts.EventBuffer), writes: make(chan write, opts.FlushEvery),
		done: make(chan struct{}), start: time.Now(), baselines: map[baseKey]float64{},
		gate: make(chan struct{}), lease: lease, sentAt: make([]time.Time, p.Spec.Limits.concurrency()), rw: rw,
		waits: p.Judge.Backend != judge.BackendOffline,
	}
	switch {
	case opts.BreakAfter == 0:
		r.breakAt = DefaultBreakAfter
	case opts.BreakAfter > 0:
		r.breakAt = opts.BreakAfter
	}
	close(r.gate)
	r.prog.Total = p.PendingCount()
	r.prog.Errors = map[string]int{}
	_, r.prog.Priced = p.Spec.Prices.Cost(p.Estimate.PriceModel, 0, 0, 0)
	if err := r.loadBaselines(ctx); err != nil { // for Δ
		cancel(nil)
		rw.Close()
		release()
		return nil, err
	}
	go r.run()
	return r, nil
}

// loadBaselines reads the baseline scores already stored, for Δ (none
// when no result event is emitted).
func (r *Run) loadBaselines(ctx context.Context) error {
	if r.opts.ProgressOnly || r.plan.noBaselines() {
		return nil
	}
	rows, err := r.st.Scores(ctx, r.plan.Spec.Dataset.Name, r.plan.Spec.JudgeName, r.plan.BankHash)
	if err != nil {
		return err
	}
	for _, row := range rows {
		if row.Probe == "baseline" && !row.Missing {
			var run int
			fmt.Sscan(row.Run, &run)
			r.baselines[baseKey{row.Context, row.Candidate, run}] = row.Score
		}
	}
	return nil
}

// Events streams progress snapshots and finished requests; it is closed
// when the run ends. Sends never block the run: when the consumer falls
// behind, progress snapshots are skipped (a later one supersedes them) and
// result events are dropped and counted (Progress.DroppedEvents). Stored
// results are never dropped.
func (r *Run) Events() <-chan Event { return r.events }

// Pause stops new requests from starting; those in flight finish and are
// stored.
func (r *Run) Pause() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pauseLocked(time.Now())
}

// pauseLocked closes the gate as of now; r.mu is held.
func (r *Run) pauseLocked(now time.Time) {
	if !r.prog.Paused {
		r.prog.Paused = true
		r.pausedAt = now
		r.gate = make(chan struct{})
	}
}

// Resume lets a paused run continue.
func (r *Run) Resume() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.resumeLocked(time.Now())
}

// resumeLocked opens the gate as of now, counting the pause out of the
// run's active time; r.mu is held.
func (r *Run) resumeLocked(now time.Time) {
	if r.prog.Paused {
		r.pausedFor += max(now.Sub(r.pausedAt), 0)
		r.pausedAt = time.Time{}
		r.prog.Paused, r.prog.PauseReason, r.streak = false, "", 0
		close(r.gate)
	}
}

// pauseFor pauses the run on its own account, saying why.
func (r *Run) pauseFor(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pauseLocked(time.Now())
	r.prog.PauseReason = reason
}

// Cancel stops the run: no new request starts, requests in flight are
// abandoned (not stored), and everything finished is written before Wait
// returns.
func (r *Run) Cancel() { r.cancel(errCanceled) }

// Wait blocks until the run has ended and every finished response is
// stored. The error is non-nil when the run stopped early for a reason
// other than cancellation (a judge error that stops runs, or a store
// error).
func (r *Run) Wait() (Summary, error) {
	<-r.done
	return r.summary, r.summary.Stopped
}

// Snapshot returns the current progress.
func (r *Run) Snapshot() Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snapshotLocked()
}

func (r *Run) snapshotLocked() Progress { return r.snapshotAt(time.Now()) }

// snapshotAt is the progress as of now; r.mu is held.
func (r *Run) snapshotAt(now time.Time) Progress {
	p := r.prog
	// A snapshot per result: its copies must not grow with the run (the
	// error counts change only on a failure).
	if r.errSnap == nil {
		r.errSnap = maps.Clone(r.prog.Errors)
	}
	p.Errors = r.errSnap
	p.At = now
	p.Elapsed = p.At.Sub(r.start)
	paused := r.pausedFor
	if p.Paused {
		paused += max(now.Sub(r.pausedAt), 0)
	}
	p.Active = max(p.Elapsed-paused, 0)
	p.Rate, p.ETA = rateETA(p.Sent, p.Total-p.Done, p.Active)
	p.DroppedEvents = r.dropped.Load()
	p.Waiting, p.WaitUntil = r.lim.Waiting()
	p.Retrying = r.lim.Retrying()
	for _, t := range r.sentAt {
		if !t.IsZero() && (p.OldestSent.IsZero() || t.Before(p.OldestSent)) {
			p.OldestSent = t
		}
	}
	return p
}

func (r *Run) run() {
	var writerWG, workerWG, tickWG sync.WaitGroup
	writerWG.Add(1)
	go func() { defer writerWG.Done(); r.writer() }()
	tickStop := make(chan struct{})
	tickWG.Add(2)
	go func() { defer tickWG.Done(); r.ticker(tickStop) }()
	go func() { defer tickWG.Done(); r.keepLease(tickStop) }()

	// The plan's work comes in chunks (one for a whole plan, made while
	// the run goes for a streamed one): the next is made, and its cached
	// answers stored, while this one is sent. The workers take the calls
	// of the chunk being sent themselves (jobs). Calls not taken when the
	// run stops are never sent: a worker checks the run's context before
	// each. The channels are unbuffered, so a run holds three chunks at
	// most: the one being sent, the next, and the one being made
	// (stream.go).
	chunks := make(chan *Plan)
	var chunkErr error
	var chunkWG sync.WaitGroup
	chunkWG.Add(1)
	go func() {
		defer chunkWG.Done()
		chunkErr = r.plan.chunks(r.ctx, r.st, chunks)
	}()
	ready := make(chan *Plan)
	q := &jobs{ctx: r.ctx, ready: ready}
	conc := r.plan.Spec.Limits.concurrency()
	for slot := range conc {
		workerWG.Add(1)
		go func() { defer workerWG.Done(); r.worker(q, slot) }()
	}
feed:
	for cp := range chunks {
		// Cached answers first: they cost nothing and need no worker.
		r.finishCached(cp)
		select {
		case ready <- cp:
		case <-r.ctx.Done():
			break feed
		}
	}
	close(ready)
	chunkWG.Wait()
	if chunkErr != nil && r.ctx.Err() == nil {
		r.stop(fmt.Errorf("plan: %w", chunkErr))
	}
	workerWG.Wait()
	close(r.writes)
	writerWG.Wait()
	close(tickStop)
	tickWG.Wait()

	bg := context.WithoutCancel(r.ctx)
	var study store.Progress
	var studyErr error
	countStudy := func() {
		study, studyErr = r.st.Progress(bg, r.plan.Spec.Dataset.Name, r.plan.Spec.JudgeName, r.plan.BankHash)
	}
	if r.lease.Built() {
		// The run started on a study without request rows, and its
		// writer built the study's score snapshot and counted its
		// progress from the rows it created: the release uses that
		// snapshot when nothing else wrote to the study, and then nothing
		// reads the study back (docs/store.md, "A run's own snapshot").
		r.lease.Release(bg)
		var ok bool
		if study, ok = r.lease.StudyProgress(); !ok {
			countStudy()
		}
	} else {
		// The study's progress is counted while the lease's release
		// writes its score snapshot: both read what the run wrote, which
		// is all in the tables now, and neither changes what the other
		// reads, so on two cores the run ends one count sooner.
		counted := make(chan struct{})
		go func() {
			defer close(counted)
			countStudy()
		}()
		r.lease.Release(bg)
		<-counted
	}
	r.mu.Lock()
	r.summary = Summary{Progress: r.snapshotLocked(), Stopped: r.stopped, Study: study, StudyErr: studyErr}
	r.summary.Canceled = r.stopped == nil && r.ctx.Err() != nil
	r.summary.ETA = 0 // an ended run has nothing left to wait for
	r.mu.Unlock()
	r.cancel(nil)
	r.emit(Event{Kind: EventProgress, Progress: r.summary.Progress}, false)
	close(r.events)
	close(r.done)
}

// rateETA is the rate of sent requests over the run's active time and
// the time the remaining requests take at that rate (zeros when unknown).
func rateETA(sent, remaining int, active time.Duration) (float64, time.Duration) {
	s := active.Seconds()
	if s <= 0 || sent <= 0 {
		return 0, 0
	}
	rate := float64(sent) / s
	return rate, time.Duration(float64(max(remaining, 0)) / rate * float64(time.Second))
}

// worker sends requests until none is left (jobs.take) or the run is
// canceled; slot is its place in r.sentAt.
func (r *Run) worker(q *jobs, slot int) {
	// A paid judge's worker waits for its answers' commit before its next
	// request (see below); the offline simulator's answers cost nothing
	// to redo, so its workers do not wait, which keeps a 60,800-request
	// offline study at a few dozen commits instead of thousands.
	var ack chan struct{}
	if r.waits {
		ack = make(chan struct{}, 1)
	}
	for {
		jb, ok := q.take()
		if !ok {
			return
		}
		p, i := jb.plan, jb.item
		if r.ctx.Err() != nil { // stopped: select below may still pick the open gate
			return
		}
		if err := r.waitGate(); err != nil {
			return
		}
		it := &p.Items[i]
		// A G-Eval request samples N calls: each is charged a start and
		// its share of the tokens, so RPM and TPM bound the calls.
		n := r.plan.samples()
		for s := range n {
			tok := int(it.InTokens+it.OutTokens) / n
			if s == 0 {
				tok += int(it.InTokens+it.OutTokens) % n
			}
			if err := r.lim.Wait(r.ctx, tok); err != nil || r.ctx.Err() != nil {
				return
			}
		}
		req, err := p.Request(i)
		if err != nil {
			row := p.Row(it)
			r.stop(fmt.Errorf("render %s/%s %s: %w", row.Context, row.Candidate, row.Probe, err))
			return
		}
		j := r.judges[0]
		if len(r.judges) > 1 {
			j = r.judges[it.Run]
		}
		r.mu.Lock()
		r.prog.InFlight++
		r.sentAt[slot] = time.Now()
		r.mu.Unlock()
		res, err := j.Score(r.ctx, req)
		r.mu.Lock()
		r.prog.InFlight--
		r.sentAt[slot] = time.Time{}
		if usageEstimated(res) {
			r.prog.UsageEstimated++
		}
		r.mu.Unlock()
		kind := judge.KindOf(err)
		if err != nil && (kind == judge.KindCanceled || r.ctx.Err() != nil) {
			// Abandoned, not failed: a canceled call is never recorded.
			return
		}
		if actual := res.PromptTokens + res.CompletionTokens; actual > 0 {
			r.lim.Adjust(actual - int(it.InTokens) - int(it.OutTokens))
		}
		// One call may answer several items (SAJA's criteria): each is
		// stored, all in one transaction (finishCall). A server judge's
		// worker waits for that commit before it takes its next request,
		// so at any moment at most Concurrency requests are answered but
		// not yet committed: all a kill -9 can make the next run send
		// again.
		//
		// A call byte for byte another's (Plan.sameCalls) is not sent:
		// its items are this call's members too, stored with its answer
		// or failure and counted as from cache (shared).
		r.finishCall(p, i, res, err, ack)
		if kind.StopsRun() {
			r.stop(fmt.Errorf("the judge cannot continue: %w", err))
			return
		}
		r.breaker(kind, err)
	}
}

// usageEstimated reports whether the server's token counts of a call
// were replaced by estimates (judge.CheckUsage).
func usageEstimated(res judge.Result) bool {
	for _, s := range res.Samples {
		if s.UsageNote != "" {
			return true
		}
	}
	return false
}

// memberResponse is what item k stores of a call's result: its rating
// (cellResponse), with the call's tokens on the first member only, so
// that the stored cost counts each call once.
func (p *Plan) memberResponse(k int, first bool, res judge.Result, err error) store.Response {
	mk := &p.Items[k]
	resp := cellResponse(p.Row(mk), int(mk.Part), first, res, err)
	if !first {
		resp.PromptTokens, resp.CachedTokens, resp.CompletionTokens = 0, 0, 0
	}
	return resp
}

// shared reports whether item k, a member of the call to lead, is there
// because its own call is byte for byte that one (Plan.sameCalls).
func (p *Plan) shared(lead, k int) bool { return int(p.Items[k].Lead) != lead }

// job is one call for a worker: item of plan (the run's plan, or a
// chunk of a streamed one).
type job struct {
	plan *Plan
	item int
}

// breaker counts requests failed in a row for transport reasons (any
// reply from the server, even an unparseable one, resets the count) and
// pauses or stops the run when the count reaches breakAt.
func (r *Run) breaker(kind judge.ErrorKind, err error) {
	r.mu.Lock()
	switch kind {
	case judge.KindNetwork, judge.KindTimeout, judge.KindServer:
		r.streak++
	default:
		r.streak = 0
	}
	trip := r.breakAt > 0 && r.streak == r.breakAt && !r.prog.Paused
	n := r.streak
	r.mu.Unlock()
	if !trip {
		return
	}
	reason := fmt.Sprintf("%d requests in a row failed (last: %v)", n, err)
	if r.opts.PauseOnBreak {
		r.pauseFor("the judge's server looks down: " + reason + "; resume when it is back")
		return
	}
	r.stop(fmt.Errorf("%w: %s", ErrServerDown, reason))
}

// waitGate blocks while the run is paused.
func (r *Run) waitGate() error {
	r.mu.Lock()
	g := r.gate
	paused := r.prog.Paused
	r.mu.Unlock()
	if paused && r.opts.parked != nil {
		r.opts.parked()
	}
	select {
	case <-g:
		return nil
	case <-r.ctx.Done():
		return r.ctx.Err()
	}
}

// stop ends the run early with err (the first one wins).
func (r *Run) stop(err error) {
	r.mu.Lock()
	if r.stopped == nil {
		r.stopped = err
	}
	r.mu.Unlock()
	r.cancel(err)
}

// toResponse records one Score call: an answer when it scored, else a
// failure of the error's kind.
func toResponse(row store.Request, res judge.Result, err error) store.Response {
	resp := store.Response{
		Request:          row,
		Score:            math.NaN(),
		PromptTokens:     res.PromptTokens,
		CachedTokens:     res.CachedPromptTokens,
		CompletionTokens: res.CompletionTokens,
		Latency:          res.Latency,
		Time:             time.Now(),
	}
	if len(res.Samples) > 1 {
		// G-Eval's N sampled replies of one request: all of them, as a
		// JSON array of strings (docs/rubrics.md).
		raws := make([]string, len(res.Samples))
		for i, s := range res.Samples {
			raws[i] = s.Raw
		}
		if b, jerr := json.Marshal(raws); jerr == nil {
			resp.Raw = string(b)
		}
	} else if len(res.Samples) > 0 {
		s := res.Samples[0]
		resp.Raw = s.Raw
		if len(s.Logprobs) > 0 {
			if b, jerr := json.Marshal(s.Logprobs); jerr == nil {
				resp.Logprobs = b
			}
		}
	}
	switch {
	case err == nil && res.HasScore:
		resp.Score = res.Score
	case err == nil:
		resp.ErrKind, resp.Err = string(judge.KindUnparseable), "no score in the reply"
	default:
		resp.ErrKind, resp.Err = string(judge.KindOf(err)), err.Error()
		if resp.ErrKind == "" {
			resp.ErrKind = "error"
		}
	}
	return resp
}

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
	if resp.ErrKind == "" {
		p.Answered++
		if math.IsNaN(resp.Score) {
			p.Missing++
		}
	} else {
		p.Failed++
		p.Errors[resp.ErrKind]++
		r.errSnap = nil
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
			r.mu.Lock() // in order with result events (see finish)
			r.emit(Event{Kind: EventProgress, Progress: r.snapshotLocked()}, false)
			r.mu.Unlock()
		}
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

// Why says in words why the run is not sending at full pace, as of now
// (callers pass the snapshot's At, so a view of one snapshot never changes):
// its own pause and reason, a server's wait hint with when it ends, or
// the failure its requests are being retried after. "" when nothing holds
// it back (a user's pause is shown by Paused alone).
func (p Progress) Why(now time.Time) string {
	switch {
	case p.Paused && p.PauseReason != "":
		return "paused: " + p.PauseReason
	case p.Waiting != "" && p.WaitUntil.After(now):
		return fmt.Sprintf("waiting %s, until %s: %s", p.WaitUntil.Sub(now).Round(time.Second), p.WaitUntil.Local().Format("15:04:05"), p.Waiting)
	case p.Retrying != "":
		return "retrying after " + p.Retrying
	case p.InFlight > 0 && !p.Paused && now.Sub(p.OldestSent) >= QuietAfter:
		return fmt.Sprintf("waiting for the judge: %d request(s) in flight, the oldest sent %s ago", p.InFlight, now.Sub(p.OldestSent).Round(time.Second))
	}
	return ""
}

// QuietAfter is how long the oldest request in flight may go unanswered
// before the progress says the run is waiting for the judge.
const QuietAfter = 10 * time.Second

// noBaselines reports that the study can hold no baseline answer a run
// of p looks up (Run.record's Δ): p found none of its items answered,
// and its items include every baseline condition of the bank for every
// candidate and run it sends. Reading a study's scores to learn that
// took 3–10 ms at the start of each run (docs/performance.md, "Fixed
// costs").
func (p *Plan) noBaselines() bool {
	if p.Estimate.Answered != 0 {
		return false
	}
	// A rubric plan has no bank conditions, so no baseline probe.
	for i, c := range p.conds {
		if c.Probe == "baseline" && !slices.Contains(p.planned, i) {
			return false
		}
	}
	return true
}
