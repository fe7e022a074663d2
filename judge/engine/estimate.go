package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// EstimatePlan is NewPlan without the requests: the plan's Estimate,
// computed a candidate at a time while nothing of a request is kept, so
// its memory does not grow with the number of requests (prism run
// --dry-run of a study of any size; MaxPlanRequests does not apply). The
// estimate is NewPlan's, to the request, save that it finds requests
// byte for byte another's (Estimate.Shared) by their candidates' texts
// within one context only (a text twice in a document, as SummEval has),
// not across contexts: its Items, Pending, Cached and Sends are empty,
// and it can be neither started nor exported. A rubric
// spec is planned whole, as NewPlan does.
//
// Each condition's request is rendered and keyed once whatever the number
// of runs (in a workspace without answers, where there is no cache to
// ask, only its messages' lengths are counted: banks.Renderer.Lengths): the runs answered at its coordinates come from the study's
// answers, read a few contexts at a time, and those answered elsewhere
// (the cache) from the workspace's answered runs of its key, so the work
// is one pass over the candidates and conditions plus one over the
// stored answers, and the memory that of a few contexts.
func EstimatePlan(ctx context.Context, st *store.Store, spec Spec) (*Plan, error) {
	if spec.Orders > 0 {
		// A listwise study's plan is K calls per context and condition, not
		// one per candidate: it is built whole (its limit still applies;
		// NewPlan refuses an ids-only spec).
		return NewPlan(ctx, st, spec)
	}
	p, err := planHead(ctx, st, spec, false)
	if err != nil || p.rubric != nil {
		return p, err
	}
	e, err := newEstimator(ctx, st, p)
	if err != nil {
		return nil, err
	}
	// Contexts in groups of at least cachedChunkCells conditions' cells:
	// the group's answers are read, then its cells rendered and counted.
	ctxs := p.Spec.Dataset.Contexts
	for lo := 0; lo < len(ctxs); {
		hi, ids := e.group(ctxs, lo)
		if e.some {
			if err := e.readAnswered(ids); err != nil {
				return nil, err
			}
		}
		for i := range ctxs[lo:hi] {
			if err := e.addContext(&ctxs[lo+i]); err != nil {
				return nil, err
			}
		}
		if err := e.count(); err != nil {
			return nil, err
		}
		lo = hi
	}
	e.finish()
	return p, nil
}

// cellCoord is the coordinates of one condition of one candidate.
type cellCoord struct{ context, candidate, probe, wording string }

// cell is one condition of one candidate as EstimatePlan counts it.
type cell struct {
	key   string
	coord cellCoord
	in    int64
	twin  int // the batch index of an earlier candidate's cell with the same text and condition, or -1
}

// estimator is EstimatePlan's state: the study's answers of the group of
// contexts being counted (so the estimate never holds the coordinates of
// the whole study) and the group's cells.
type estimator struct {
	ctx  context.Context
	st   *store.Store
	p    *Plan
	spec Spec
	R    int
	some bool // the workspace holds an answer: the study's are read, the cache asked

	snap *store.StudyAnswers // the study's current score snapshot, when it has one
	ans  store.AnsweredSet   // the study's answers in the group's contexts
	// done regroups ans by condition for many runs (R > smallRepeats).
	done    map[cellCoord][]int
	runsBuf []int
	// need is every planned run of every condition as snap's indices
	// (snapConds); needOK is false when one has no answer in the study.
	need   []int32
	needOK bool

	keyer    *store.Keyer
	out      int64 // output tokens of a request
	sel      []banks.Condition
	wordings []string

	ids   []string // the group's contexts
	batch []cell
	keys  []string
	sends []int64 // per cell of batch: requests to send
	msgs  []store.Message
	lens  []banks.Lengths
}

// newEstimator reads what the whole estimate needs: whether the
// workspace holds any answer, the study's snapshot (kept on p with
// Spec.KeepRead) and the conditions planned.
func newEstimator(ctx context.Context, st *store.Store, p *Plan) (*estimator, error) {
	spec := p.Spec
	e := &estimator{ctx: ctx, st: st, p: p, spec: spec, R: spec.Repeats, out: int64(outputTokens(spec.Config)),
		batch: make([]cell, 0, 512), keys: make([]string, 0, 512), msgs: make([]store.Message, 0, 2)}
	var err error
	if e.some, err = st.AnyAnswer(ctx); err != nil {
		return nil, fmt.Errorf("engine: cached answers: %w", err)
	}
	if e.some {
		// A study whose score snapshot is current is read from it once
		// (a few BLOBs), not from its requests a few contexts at a time;
		// with KeepRead the plan keeps the decode (Plan.StudyRead) for a
		// read of the study's rows after it.
		read := spec.Read
		if !read.Holds(spec.Dataset.Name, spec.JudgeName, p.BankHash) {
			if read, err = st.ReadStudy(ctx, spec.Dataset.Name, spec.JudgeName, p.BankHash, spec.KeepRead); err != nil {
				return nil, fmt.Errorf("engine: pending requests: %w", err)
			}
		}
		e.snap = read.Answers()
		if spec.KeepRead {
			p.read = read
		}
	}
	if e.keyer, err = store.NewKeyer(p.Judge.Backend, spec.Config.Model, p.Judge.Params); err != nil {
		return nil, err
	}
	e.sel = make([]banks.Condition, len(p.planned))
	e.wordings = make([]string, len(p.planned))
	for i, c := range p.planned {
		e.sel[i] = p.conds[c]
		e.wordings[i] = strconv.Itoa(e.sel[i].Wording)
	}
	e.need, e.needOK = snapConds(e.snap, e.sel, e.wordings, e.R)
	return e, nil
}

// group returns the end of the group of contexts starting at lo (at
// least cachedChunkCells cells, unless they are the last) and their ids.
func (e *estimator) group(ctxs []model.Context, lo int) (hi int, ids []string) {
	hi, cells := lo, 0
	ids = e.ids[:0]
	for hi < len(ctxs) && (hi == lo || cells < cachedChunkCells) {
		cells += len(ctxs[hi].Candidates) * len(e.sel)
		ids = append(ids, ctxs[hi].ID)
		hi++
	}
	e.ids = ids
	return hi, ids
}

// readAnswered reads the study's answers in contexts ids.
func (e *estimator) readAnswered(ids []string) error {
	var err error
	if e.snap != nil {
		e.ans = e.snap.In(ids)
	} else if e.ans, err = e.st.AnsweredIn(e.ctx, e.spec.JudgeName, e.spec.Dataset.Name, e.p.BankHash, ids); err != nil {
		return fmt.Errorf("engine: pending requests: %w", err)
	}
	e.done = nil
	if e.R > smallRepeats && e.ans.Len() > 0 {
		e.done = map[cellCoord][]int{}
		e.ans.Each(func(c, k, probe, w, run string) {
			if r, ok := runIndex(run, e.R); ok {
				cc := cellCoord{c, k, probe, w}
				e.done[cc] = append(e.done[cc], r)
			}
		})
		for _, rs := range e.done {
			slices.Sort(rs)
		}
	}
	return nil
}

// answeredRuns lists the runs in [0, R) answered at a condition's
// coordinates, in order: asked of the set run by run for a few runs,
// else from the set regrouped by condition (one pass over the answers).
func (e *estimator) answeredRuns(c cellCoord) []int {
	if e.R > smallRepeats || e.ans.Len() == 0 {
		return e.done[c]
	}
	e.runsBuf = e.runsBuf[:0]
	for r := range e.R {
		if e.ans.Has(c.context, c.candidate, c.probe, c.wording, strconv.Itoa(r)) {
			e.runsBuf = append(e.runsBuf, r)
		}
	}
	return e.runsBuf
}

// allAnswered reports whether every run of every condition of a
// candidate is answered at its coordinates.
func (e *estimator) allAnswered(ctxID, candID string) bool {
	if e.ans.Len() == 0 {
		return false
	}
	if e.need != nil {
		return e.needOK && e.snap.HasAll(ctxID, candID, e.need)
	}
	for si, cond := range e.sel {
		if len(e.answeredRuns(cellCoord{ctxID, candID, cond.Probe, e.wordings[si]})) < e.R {
			return false
		}
	}
	return true
}

// addContext adds the cells of every candidate of c to the batch but
// those all answered: nothing of such a candidate is sent or asked of the
// cache, so it is counted answered without rendering or keying its
// requests, or even a cell (a finished study's estimate reads its
// answers and nothing more). A text twice in c shares the requests both
// candidates have pending (Plan.sameCalls): none when one is all
// answered, so only pending candidates' texts are looked up.
func (e *estimator) addContext(c *model.Context) error {
	var texts map[string]int // a pending candidate's text → the batch index of its first cell
	for _, cand := range c.Candidates {
		if e.some && e.allAnswered(c.ID, cand.ID) {
			e.p.Estimate.Answered += len(e.sel) * e.R
			continue
		}
		if e.spec.IDsOnly {
			return ErrTextsNeeded
		}
		if texts == nil {
			texts = map[string]int{}
		}
		twin, dup := texts[cand.Text]
		if !dup {
			texts[cand.Text] = len(e.batch)
		}
		twinOf := func(si int) int {
			if dup {
				return twin + si
			}
			return -1
		}
		if err := e.addCandidate(c, cand, twinOf); err != nil {
			return err
		}
	}
	return nil
}

// addCandidate adds the cells of cand, one a condition.
func (e *estimator) addCandidate(c *model.Context, cand model.Candidate, twinOf func(int) int) error {
	coord := func(cond banks.Condition) cellCoord {
		return cellCoord{c.ID, cand.ID, cond.Probe, strconv.Itoa(cond.Wording)}
	}
	if !e.some {
		// Nothing to ask the cache: no key, and the tokens from the
		// messages' lengths, counted without rendering them.
		var err error
		if e.lens, err = e.p.render.Lengths(*c, cand, e.sel, e.lens[:0]); err != nil {
			return fmt.Errorf("engine: render %s/%s: %w", c.ID, cand.ID, err)
		}
		for si, cond := range e.sel {
			e.batch = append(e.batch, cell{in: int64(estimateTokensOf(e.lens[si])), twin: twinOf(si), coord: coord(cond)})
		}
		return nil
	}
	reqs, err := e.p.render.RenderAll(*c, cand, e.sel)
	if err != nil {
		return fmt.Errorf("engine: render %s/%s: %w", c.ID, cand.ID, err)
	}
	for si, cond := range e.sel {
		e.msgs = e.msgs[:0]
		for _, m := range reqs[si].Messages {
			e.msgs = append(e.msgs, store.Message(m))
		}
		e.batch = append(e.batch, cell{key: e.keyer.Key(e.msgs), in: int64(EstimateTokens(reqs[si].Messages)), twin: twinOf(si), coord: coord(cond)})
	}
	return nil
}

// cached asks the cache about the batch's cells with runs pending (only
// they can hit it): the answered runs of each key.
func (e *estimator) cached() (map[string][]string, error) {
	if !e.some {
		return nil, nil
	}
	e.keys = e.keys[:0]
	for _, c := range e.batch {
		if len(e.answeredRuns(c.coord)) < e.R {
			e.keys = append(e.keys, c.key)
		}
	}
	cached, err := e.st.AnsweredRuns(e.ctx, e.keys)
	if err != nil {
		return nil, fmt.Errorf("engine: cached answers: %w", err)
	}
	return cached, nil
}

// count adds the batch's cells to the estimate and empties it.
func (e *estimator) count() error {
	cached, err := e.cached()
	if err != nil {
		return err
	}
	est, R := &e.p.Estimate, e.R
	e.sends = e.sends[:0]
	for _, c := range e.batch {
		answered := e.answeredRuns(c.coord)
		nAnswered := len(answered)
		hits := 0
		for _, label := range cached[c.key] {
			if r, ok := runIndex(label, R); ok {
				if _, found := slices.BinarySearch(answered, r); !found {
					hits++
				}
			}
		}
		send := int64(R - nAnswered - hits)
		if c.twin >= 0 {
			// The same text twice in a context: the run sends the
			// requests both have pending once (Plan.sameCalls).
			shared := min(send, e.sends[c.twin])
			send -= shared
			hits += int(shared)
			est.Shared += int(shared)
		}
		e.sends = append(e.sends, send)
		est.Answered += nAnswered
		est.CacheHits += hits
		est.Send += int(send)
		est.InputTokens += send * c.in
		est.OutputTokens += send * e.out
	}
	e.batch = e.batch[:0]
	return nil
}

// finish completes the estimate from the counts.
func (e *estimator) finish() {
	p, spec, est := e.p, e.spec, &e.p.Estimate
	est.Requests = spec.Dataset.NumCandidates() * len(p.planned) * e.R
	est.Calls = est.Send * p.samples()
	est.PriceModel = priceModel(spec.Config)
	est.Cost, est.Priced = spec.Prices.Cost(est.PriceModel, est.InputTokens, 0, est.OutputTokens)
	est.Time = estimateTime(est.Calls, est.InputTokens+est.OutputTokens, spec)
}

// snapConds is every run of every condition of sel as the snapshot's
// condition indices, sorted, for StudyAnswers.HasAll; ok is false when
// one has no answer in the study (no candidate is then all answered).
// nil without a snapshot, or when a candidate has more than
// maxSnapConds requests (the set is then asked run by run).
func snapConds(snap *store.StudyAnswers, sel []banks.Condition, wordings []string, R int) (need []int32, ok bool) {
	if snap == nil || len(sel)*R > maxSnapConds {
		return nil, false
	}
	need = make([]int32, 0, len(sel)*R)
	ok = true
	for si, cond := range sel {
		for r := range R {
			c := snap.Cond(cond.Probe, wordings[si], strconv.Itoa(r))
			ok = ok && c >= 0
			need = append(need, c)
		}
	}
	slices.Sort(need)
	return need, ok
}

// maxSnapConds bounds the requests of a candidate snapConds lists.
const maxSnapConds = 1 << 16

// smallRepeats is the most runs for which EstimatePlan asks the answered
// set about each run of a condition rather than regrouping it.
const smallRepeats = 16

// cachedChunkCells is about how many conditions' keys EstimatePlan asks
// the cache about at once (whole contexts: at least this many, unless
// they are the last). A variable for the tests, which make several
// groups of a few contexts.
var cachedChunkCells = 500

// runIndex reads a run label the engine writes (decimal, no leading zero)
// below repeats.
func runIndex(label string, repeats int) (int, bool) {
	r, err := strconv.Atoi(label)
	if err != nil || r < 0 || r >= repeats || strconv.Itoa(r) != label {
		return 0, false
	}
	return r, true
}

// A whole plan (NewPlan) is resolved item by item against the
// workspace: resolve and its steps.

// resolve fills Pending, Cached and Estimate from the workspace.
func (p *Plan) resolve(ctx context.Context, st *store.Store) error {
	// The items are asked about one by one against the study's answered
	// coordinates (no list of every request's row is built).
	ans, err := st.Answered(ctx, p.Spec.JudgeName, p.Spec.Dataset.Name, p.BankHash)
	if err != nil {
		return fmt.Errorf("engine: pending requests: %w", err)
	}
	// Cached answers: only when the workspace holds any answer at all.
	some, err := st.AnyAnswer(ctx)
	if err != nil {
		return fmt.Errorf("engine: cached answers: %w", err)
	}
	return p.resolveWith(ctx, st, ans, some)
}

// resolveWith is resolve given the study's answered coordinates (of
// every context of p's items, at least) and whether the workspace holds
// any answer (when it holds none, nothing is asked of the cache).
func (p *Plan) resolveWith(ctx context.Context, st *store.Store, ans store.AnsweredSet, some bool) error {
	p.pendingOf(ans)
	if some {
		if err := p.cachedOf(ctx, st); err != nil {
			return err
		}
	}
	p.listSends()
	p.fillEstimate()
	return nil
}

// pendingOf lists in Pending the items with no answer in ans.
func (p *Plan) pendingOf(ans store.AnsweredSet) {
	if ans.Len() == 0 {
		p.Pending = make([]int, len(p.Items))
		for i := range p.Pending {
			p.Pending[i] = i
		}
		return
	}
	for i := range p.Items {
		it := &p.Items[i]
		c := &p.Spec.Dataset.Contexts[it.Context]
		if !ans.Has(c.ID, c.Candidates[it.Candidate].ID, p.probe(it), p.wordingLabel(it), p.runLabel(it)) {
			p.Pending = append(p.Pending, i)
		}
	}
}

// cachedOf finds in the workspace the answers recorded elsewhere for the
// pending items' messages (same key and run): Cached.
func (p *Plan) cachedOf(ctx context.Context, st *store.Store) error {
	want := make([][2]string, len(p.Pending))
	for j, i := range p.Pending {
		it := &p.Items[i]
		want[j] = [2]string{it.Key(), p.runLabel(it)}
	}
	cached, err := st.CachedAnswers(ctx, want)
	if err != nil {
		return fmt.Errorf("engine: cached answers: %w", err)
	}
	for j, i := range p.Pending {
		if resp, ok := cached[want[j]]; ok {
			resp.Request = p.Row(&p.Items[i])
			p.Cached[i] = resp
		}
	}
	return nil
}

// listSends lists in Sends the calls to send for the pending items not
// cached, grouping the items one call answers (a SAJA call's criteria, a
// batched call's candidates, calls byte for byte the same: sameCalls).
func (p *Plan) listSends() {
	same := p.sameCalls()
	if (p.rubric != nil && p.Spec.Rubric.Kind == banks.RubricSAJA) || p.orders != nil || same != nil {
		p.group = map[int][]int{}
	}
	if p.group == nil && len(p.Cached) == 0 {
		p.Sends = p.Pending
		return
	}
	for _, i := range p.Pending {
		if _, ok := p.Cached[i]; ok {
			continue
		}
		lead := int(p.Items[i].Lead)
		if l, ok := same[lead]; ok {
			lead = l
			p.Estimate.Shared++
		}
		if p.group == nil {
			p.Sends = append(p.Sends, i)
			continue
		}
		if _, ok := p.group[lead]; !ok {
			p.Sends = append(p.Sends, lead)
		}
		p.group[lead] = append(p.group[lead], i)
	}
}

// fillEstimate fills Estimate from the items, pending and sends.
func (p *Plan) fillEstimate() {
	e := &p.Estimate
	e.Requests = len(p.Items)
	e.Answered = len(p.Items) - len(p.Pending)
	e.CacheHits = len(p.Cached) + e.Shared
	e.Send = len(p.Sends)
	e.Calls = e.Send * p.samples()
	for _, i := range p.Sends {
		e.InputTokens += int64(p.Items[i].InTokens)
		e.OutputTokens += int64(p.Items[i].OutTokens)
	}
	e.PriceModel = priceModel(p.Spec.Config)
	e.Cost, e.Priced = p.Spec.Prices.Cost(e.PriceModel, e.InputTokens, 0, e.OutputTokens)
	e.Time = estimateTime(e.Calls, e.InputTokens+e.OutputTokens, p.Spec)
}

// sameCalls finds the calls of p to send that are byte for byte another
// one's (same request key and run: SummEval has the same summary twice in
// one document): it maps each such call's lead to the first one's, whose
// answer they share, so one call is sent for all of them (nil when there
// are none). A batched plan's calls are all distinct.
func (p *Plan) sameCalls() map[int]int {
	if p.orders != nil {
		return nil
	}
	// The key's first 8 bytes (of a SHA-256) and the run find a match,
	// checked on the whole key: a map of 16-byte keys, not 36.
	type short struct {
		h   uint64
		run int32
	}
	first := make(map[short]int32, len(p.Pending))
	var same map[int]int
	for _, i := range p.Pending {
		if _, ok := p.Cached[i]; ok {
			continue
		}
		lead := p.Items[i].Lead
		it := &p.Items[lead]
		k := short{binary.LittleEndian.Uint64(it.key[:8]), it.Run}
		f, ok := first[k]
		switch {
		case !ok:
			first[k] = lead
		case f != lead && p.Items[f].key == it.key:
			if same == nil {
				same = map[int]int{}
			}
			same[int(lead)] = int(f)
		}
	}
	return same
}

// estimateTime is the longest of the three bounds on a run: requests at
// the RPM limit, tokens at the TPM limit, and calls of the assumed latency
// spread over the concurrency cap.
func estimateTime(send int, tokens int64, s Spec) time.Duration {
	lat := s.Latency
	if lat == 0 && s.Config.Backend == judge.BackendOpenAI {
		lat = time.Second
	}
	t := time.Duration(float64(send) * float64(lat) / float64(s.Limits.concurrency()))
	if s.Limits.RPM > 0 {
		t = max(t, time.Duration(float64(send)/float64(s.Limits.RPM)*float64(time.Minute)))
	}
	if s.Limits.TPM > 0 {
		t = max(t, time.Duration(float64(tokens)/float64(s.Limits.TPM)*float64(time.Minute)))
	}
	return t
}
