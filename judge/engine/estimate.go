package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/prism-eval/prism/banks"
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
		// A batched study's plan is K calls per context and condition, not
		// one per candidate: it is built whole (its limit still applies).
		return NewPlan(ctx, st, spec)
	}
	p, err := planHead(ctx, st, spec, false)
	if err != nil || p.rubric != nil {
		return p, err
	}
	spec = p.Spec
	R := spec.Repeats
	type cellCoord struct{ context, candidate, probe, wording string }
	// The study's answers are read a group of contexts at a time (those
	// whose cells are counted together), so the estimate never holds the
	// coordinates of the whole study.
	var ans store.AnsweredSet
	// answeredRuns lists the runs in [0, R) answered at a condition's
	// coordinates, in order: asked of the set run by run for a few runs,
	// else from the set regrouped by condition (one pass over the answers).
	var done map[cellCoord][]int
	var runsBuf []int
	answeredRuns := func(c cellCoord) []int {
		if R > smallRepeats || ans.Len() == 0 {
			return done[c]
		}
		runsBuf = runsBuf[:0]
		for r := range R {
			if ans.Has(c.context, c.candidate, c.probe, c.wording, strconv.Itoa(r)) {
				runsBuf = append(runsBuf, r)
			}
		}
		return runsBuf
	}
	// A study whose score snapshot is current is read from it once (a
	// few BLOBs), not from its requests a few contexts at a time.
	var snap *store.StudyAnswers
	readAnswered := func(ids []string) error {
		var err error
		if snap != nil {
			ans = snap.In(ids)
		} else if ans, err = st.AnsweredIn(ctx, spec.JudgeName, spec.Dataset.Name, p.BankHash, ids); err != nil {
			return fmt.Errorf("engine: pending requests: %w", err)
		}
		done = nil
		if R > smallRepeats && ans.Len() > 0 {
			done = map[cellCoord][]int{}
			ans.Each(func(c, k, probe, w, run string) {
				if r, ok := runIndex(run, R); ok {
					cc := cellCoord{c, k, probe, w}
					done[cc] = append(done[cc], r)
				}
			})
			for _, rs := range done {
				slices.Sort(rs)
			}
		}
		return nil
	}
	some, err := st.AnyAnswer(ctx)
	if err != nil {
		return nil, fmt.Errorf("engine: cached answers: %w", err)
	}
	if some {
		// Decoded once: with KeepRead the plan keeps the decode
		// (Plan.StudyRead) for a read of the study's rows after it.
		read, err := st.ReadStudy(ctx, spec.Dataset.Name, spec.JudgeName, p.BankHash, spec.KeepRead)
		if err != nil {
			return nil, fmt.Errorf("engine: pending requests: %w", err)
		}
		snap = read.Answers()
		if spec.KeepRead {
			p.read = read
		}
	}
	keyer, err := store.NewKeyer(p.Judge.Backend, spec.Config.Model, p.Judge.Params)
	if err != nil {
		return nil, err
	}
	out := int64(outputTokens(spec.Config))
	e := &p.Estimate
	type cell struct {
		key   string
		coord cellCoord
		in    int64
		twin  int  // the batch index of an earlier candidate's cell with the same text and condition, or -1
		done  bool // every run answered at coord (allAnswered found it): not asked again
	}
	var sends []int64 // per cell of batch: requests to send
	batch := make([]cell, 0, 512)
	keys := make([]string, 0, 512)
	count := func() error {
		var cached map[string][]string
		if some {
			keys = keys[:0]
			for _, c := range batch {
				if !c.done && len(answeredRuns(c.coord)) < R { // only a condition with runs pending can hit the cache
					keys = append(keys, c.key)
				}
			}
			var err error
			if cached, err = st.AnsweredRuns(ctx, keys); err != nil {
				return fmt.Errorf("engine: cached answers: %w", err)
			}
		}
		sends = sends[:0]
		for _, c := range batch {
			var answered []int
			nAnswered := R
			if !c.done {
				answered = answeredRuns(c.coord)
				nAnswered = len(answered)
			}
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
				shared := min(send, sends[c.twin])
				send -= shared
				hits += int(shared)
				e.Shared += int(shared)
			}
			sends = append(sends, send)
			e.Answered += nAnswered
			e.CacheHits += hits
			e.Send += int(send)
			e.InputTokens += send * c.in
			e.OutputTokens += send * out
		}
		batch = batch[:0]
		return nil
	}
	msgs := make([]store.Message, 0, 2)
	sel := make([]banks.Condition, len(p.planned))
	wordings := make([]string, len(p.planned))
	for i, c := range p.planned {
		sel[i] = p.conds[c]
		wordings[i] = strconv.Itoa(sel[i].Wording)
	}
	// allAnswered reports whether every run of every condition of a
	// candidate is answered at its coordinates.
	need, needOK := snapConds(snap, sel, wordings, R)
	allAnswered := func(ctxID, candID string) bool {
		if ans.Len() == 0 {
			return false
		}
		if need != nil {
			return needOK && snap.HasAll(ctxID, candID, need)
		}
		for si, cond := range sel {
			if len(answeredRuns(cellCoord{ctxID, candID, cond.Probe, wordings[si]})) < R {
				return false
			}
		}
		return true
	}
	// Contexts in groups of at least cachedChunkCells conditions' cells:
	// the group's answers are read, then its cells rendered and counted.
	ctxs := spec.Dataset.Contexts
	var ids []string
	var lens []banks.Lengths
	for lo := 0; lo < len(ctxs); {
		hi, cells := lo, 0
		ids = ids[:0]
		for hi < len(ctxs) && (hi == lo || cells < cachedChunkCells) {
			cells += len(ctxs[hi].Candidates) * len(sel)
			ids = append(ids, ctxs[hi].ID)
			hi++
		}
		if some {
			if err := readAnswered(ids); err != nil {
				return nil, err
			}
		}
		for _, c := range ctxs[lo:hi] {
			texts := map[string]int{} // a candidate's text → the batch index of its first cell
			for _, cand := range c.Candidates {
				twin, dup := texts[cand.Text]
				if !dup {
					texts[cand.Text] = len(batch)
				}
				twinOf := func(si int) int {
					if dup {
						return twin + si
					}
					return -1
				}
				if !some {
					// Nothing to ask the cache: no key, and the tokens
					// from the messages' lengths, counted without
					// rendering them.
					if lens, err = p.render.Lengths(c, cand, sel, lens[:0]); err != nil {
						return nil, fmt.Errorf("engine: render %s/%s: %w", c.ID, cand.ID, err)
					}
					for si, cond := range sel {
						batch = append(batch, cell{in: int64(estimateTokensOf(lens[si])), twin: twinOf(si),
							coord: cellCoord{c.ID, cand.ID, cond.Probe, strconv.Itoa(cond.Wording)}})
					}
					continue
				}
				if allAnswered(c.ID, cand.ID) {
					// Nothing of this candidate is sent or asked of the
					// cache: it is counted answered without rendering or
					// keying its requests (a finished study's estimate
					// reads its answers and nothing more).
					for si, cond := range sel {
						batch = append(batch, cell{twin: twinOf(si), done: true, coord: cellCoord{c.ID, cand.ID, cond.Probe, strconv.Itoa(cond.Wording)}})
					}
					continue
				}
				reqs, err := p.render.RenderAll(c, cand, sel)
				if err != nil {
					return nil, fmt.Errorf("engine: render %s/%s: %w", c.ID, cand.ID, err)
				}
				for si, cond := range sel {
					msgs = msgs[:0]
					for _, m := range reqs[si].Messages {
						msgs = append(msgs, store.Message(m))
					}
					batch = append(batch, cell{key: keyer.Key(msgs), in: int64(EstimateTokens(reqs[si].Messages)), twin: twinOf(si),
						coord: cellCoord{c.ID, cand.ID, cond.Probe, strconv.Itoa(cond.Wording)}})
				}
			}
		}
		if err := count(); err != nil {
			return nil, err
		}
		lo = hi
	}
	e.Requests = spec.Dataset.NumCandidates() * len(p.planned) * R
	e.Calls = e.Send * p.samples()
	e.PriceModel = priceModel(spec.Config)
	e.Cost, e.Priced = spec.Prices.Cost(e.PriceModel, e.InputTokens, 0, e.OutputTokens)
	e.Time = estimateTime(e.Calls, e.InputTokens+e.OutputTokens, spec)
	return p, nil
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
