package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
	events chan Event // closed, under mu, when the run ends (ended)
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
	ended     bool                  // events is closed
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
	if p.Spec.IDsOnly {
		return nil, ErrTextsNeeded
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
	if err := storeStudy(ctx, st, p); err != nil {
		release()
		return nil, err
	}
	rw, err := st.NewRunWriter(ctx, lease)
	if err != nil {
		release()
		return nil, err
	}
	r := newRun(ctx, st, judges, p, opts.withDefaults(), lease, rw)
	if err := r.loadBaselines(ctx); err != nil { // for Δ
		r.cancel(nil)
		rw.Close()
		release()
		return nil, err
	}
	go r.run()
	return r, nil
}

// Acquire plans spec and sends what it still needs, to the end, with no
// one watching: the events are drained and dropped. It is for small
// offline studies set up on the user's behalf (the demo's simulator
// variants); a run someone watches goes through Start.
func Acquire(ctx context.Context, st *store.Store, spec Spec) (Summary, error) {
	plan, err := NewPlan(ctx, st, spec)
	if err != nil {
		return Summary{}, err
	}
	judges, err := NewJudges(spec.Config, spec.Repeats, nil)
	if err != nil {
		return Summary{}, err
	}
	r, err := Start(ctx, st, judges, plan, Options{ProgressOnly: true})
	if err != nil {
		return Summary{}, err
	}
	for range r.Events() {
	}
	return r.Wait()
}

// storeStudy stores what the answers of p refer to: its judge, its bank's
// snapshot and the study's plan.
func storeStudy(ctx context.Context, st *store.Store, p *Plan) error {
	if _, err := st.PutJudge(ctx, p.Judge); err != nil {
		return err
	}
	snap, err := p.snapshot()
	if err != nil {
		return fmt.Errorf("engine: bank snapshot: %w", err)
	}
	if err := st.PutBank(ctx, snap); err != nil {
		return err
	}
	return st.PlanStudy(ctx, p.StudyPlan())
}

// withDefaults fills the options left zero.
func (opts Options) withDefaults() Options {
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = FlushEvery
	}
	if opts.ProgressInterval <= 0 {
		opts.ProgressInterval = 100 * time.Millisecond
	}
	if opts.EventBuffer <= 0 {
		opts.EventBuffer = 4096
	}
	return opts
}

// newRun is a Run of p, not yet started.
func newRun(ctx context.Context, st *store.Store, judges []judge.Judge, p *Plan, opts Options, lease *store.Lease, rw *store.ResponseWriter) *Run {
	lim := opts.Limiter
	if lim == nil {
		lim = NewLimiter(p.Spec.Limits)
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
	return r
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
// stored. A progress event says so at once, after every result event
// sent before it (a watcher's last word is never a stale state).
func (r *Run) Pause() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pauseLocked(time.Now())
	r.emitProgressLocked()
}

// pauseLocked closes the gate as of now; r.mu is held.
func (r *Run) pauseLocked(now time.Time) {
	if !r.prog.Paused {
		r.prog.Paused = true
		r.pausedAt = now
		r.gate = make(chan struct{})
	}
}

// Resume lets a paused run continue, and says so with a progress event
// as Pause does.
func (r *Run) Resume() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.resumeLocked(time.Now())
	r.emitProgressLocked()
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
	r.emitProgressLocked()
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
