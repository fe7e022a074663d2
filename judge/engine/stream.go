package engine

import (
	"context"
	"fmt"

	"github.com/prism-eval/prism/model/store"
)

// streamChunk is how many items a streamed plan makes at a time: 16,384
// items are 1 MiB, and a run holds at most three chunks (the one being
// sent, the next, and the one being made), so a run's memory does not
// grow with its study (docs/performance.md).
const streamChunk = 16384

// firstChunk is the size of a streamed plan's first chunk at concurrency
// conc: eight rounds of requests. A run's first requests wait for its
// first chunk, and a chunk of streamChunk items took 40 ms to make (200
// contexts × 16 candidates × 38 conditions; docs/performance.md, "Fixed
// costs"). Against a server, eight rounds last longer than the next
// chunk takes to make; the offline simulator may finish them sooner and
// then wait for it, as it waited for the first chunk before.
func firstChunk(conc int) int { return max(8*conc, 256) }

// NewRunPlan is the plan a run starts: for a pointwise bank study a
// streamed plan, whose estimate is EstimatePlan's and whose requests are
// made a chunk at a time while it runs, so that neither planning nor the
// run holds the study's requests and MaxPlanRequests does not apply; for
// a rubric or listwise study, NewPlan's whole plan. A streamed plan has no
// Items, Pending, Cached or Sends (use PendingCount); it sends the same
// requests in the same order as NewPlan's, and can be started but not
// exported (Export and the staged score need NewPlan).
func NewRunPlan(ctx context.Context, st *store.Store, spec Spec) (*Plan, error) {
	if spec.Rubric != nil || spec.Orders > 0 {
		return NewPlan(ctx, st, spec)
	}
	p, err := EstimatePlan(ctx, st, spec)
	if err != nil {
		return nil, err
	}
	p.streamed = true
	return p, nil
}

// Streamed reports whether p makes its requests while it runs (NewRunPlan).
func (p *Plan) Streamed() bool { return p.streamed }

// PendingCount is the number of p's requests with no answer at their
// coordinates when it was planned: len(Pending), or for a streamed plan
// Estimate.Requests − Estimate.Answered.
func (p *Plan) PendingCount() int {
	if p.streamed {
		return p.Estimate.Requests - p.Estimate.Answered
	}
	return len(p.Pending)
}

// chunks sends on out the plans a run works through, then closes it: p
// itself when it is whole; for a streamed plan, plans of streamChunk
// items each (and the rest of the last one's context) in send order, resolved against the study's answers and the
// cache as NewPlan resolves its items. It stops when ctx ends; an error
// (a store read) is returned after out is closed.
func (p *Plan) chunks(ctx context.Context, st *store.Store, out chan<- *Plan) error {
	defer close(out)
	if !p.streamed {
		select {
		case out <- p:
		case <-ctx.Done():
		}
		return nil
	}
	cur, err := p.newCursor()
	if err != nil {
		return err
	}
	n := p.chunk
	if n <= 0 {
		n = streamChunk
	}
	// The first chunk is small, so that the first requests go out at
	// once; the next is made while it is sent.
	size := min(n, firstChunk(p.Spec.Limits.concurrency()))
	var ids []string
	for !cur.done() {
		cp := &Plan{Spec: p.Spec, BankHash: p.BankHash, Judge: p.Judge, DatasetRev: p.DatasetRev,
			Cached: map[int]store.Response{}, render: p.render, conds: p.conds, planned: p.planned}
		if cp.Items, err = cur.next(make([]Item, 0, size), size); err != nil {
			return err
		}
		if cp.Items, err = cur.finishContext(cp.Items); err != nil {
			return err
		}
		size = n
		// The study's answers of the chunk's contexts; none to ask for
		// when the plan found none (this run writes only coordinates of
		// its own items, each once).
		var ans store.AnsweredSet
		if p.Estimate.Answered > 0 {
			ids = ids[:0]
			for i := range cp.Items {
				id := p.Spec.Dataset.Contexts[cp.Items[i].Context].ID
				if len(ids) == 0 || ids[len(ids)-1] != id {
					ids = append(ids, id)
				}
			}
			if ans, err = st.AnsweredIn(ctx, p.Spec.JudgeName, p.Spec.Dataset.Name, p.BankHash, ids); err != nil {
				return fmt.Errorf("engine: pending requests: %w", err)
			}
		}
		// The cache is asked only when the estimate found answers in it
		// (not only a context's twins, Shared, which the chunk's plan
		// sends once itself): otherwise NewPlan's look-ups would find
		// none either. Asking it for every chunk of a study whose
		// contexts hold twins was half the CPU of its offline run.
		if err := cp.resolveWith(ctx, st, ans, p.Estimate.CacheHits > p.Estimate.Shared); err != nil {
			return err
		}
		select {
		case out <- cp:
		case <-ctx.Done():
			return nil
		}
	}
	return nil
}
