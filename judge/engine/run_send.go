package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model/store"
)

// The send side of a run: its loop, its workers, the circuit breaker
// and the gate a paused run waits at.

// run sends the plan's calls and stores their answers until the plan is
// done or the run stops, then ends the run.
func (r *Run) run() {
	var writerWG, workerWG, tickWG sync.WaitGroup
	writerWG.Add(1)
	go func() { defer writerWG.Done(); r.writer() }()
	tickStop := make(chan struct{})
	tickWG.Add(2)
	go func() { defer tickWG.Done(); r.ticker(tickStop) }()
	go func() { defer tickWG.Done(); r.keepLease(tickStop) }()

	r.send(&workerWG)
	workerWG.Wait()
	close(r.writes)
	writerWG.Wait()
	close(tickStop)
	tickWG.Wait()

	study, studyErr := r.release()
	r.mu.Lock()
	r.summary = Summary{Progress: r.snapshotLocked(), Stopped: r.stopped, Study: study, StudyErr: studyErr}
	r.summary.Canceled = r.stopped == nil && r.ctx.Err() != nil
	r.summary.ETA = 0 // an ended run has nothing left to wait for
	r.mu.Unlock()
	r.cancel(nil)
	r.mu.Lock()
	r.emit(Event{Kind: EventProgress, Progress: r.summary.Progress}, false)
	r.ended = true // a late Pause or Resume sends nothing
	close(r.events)
	r.mu.Unlock()
	close(r.done)
}

// send starts the workers (workerWG counts them) and feeds them the
// plan's chunks until the plan is done or the run stops.
func (r *Run) send(workerWG *sync.WaitGroup) {
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
}

// release releases the run's lease (which writes the study's score
// snapshot) and counts the study's progress.
func (r *Run) release() (study store.Progress, studyErr error) {
	bg := context.WithoutCancel(r.ctx)
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
	return study, studyErr
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
		it := &p.Items[i]
		if !r.waitTurn(it) {
			return
		}
		req, err := p.Request(i)
		if err != nil {
			row := p.Row(it)
			r.stop(fmt.Errorf("render %s/%s %s: %w", row.Context, row.Candidate, row.Probe, err))
			return
		}
		res, err := r.call(it, req, slot)
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

// waitTurn waits until it may be sent: the gate open (not paused) and
// the limiter's leave for its calls. false: the run stopped meanwhile.
func (r *Run) waitTurn(it *Item) bool {
	if err := r.waitGate(); err != nil {
		return false
	}
	// A G-Eval request samples N calls: each is charged a start and its
	// share of the tokens, so RPM and TPM bound the calls.
	n := r.plan.samples()
	for s := range n {
		tok := int(it.InTokens+it.OutTokens) / n
		if s == 0 {
			tok += int(it.InTokens+it.OutTokens) % n
		}
		if err := r.lim.Wait(r.ctx, tok); err != nil || r.ctx.Err() != nil {
			return false
		}
	}
	return true
}

// call asks its run's judge req, counted in flight in slot meanwhile.
func (r *Run) call(it *Item, req banks.Request, slot int) (judge.Result, error) {
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
	return res, err
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
