package engine

import (
	"context"
	"fmt"
	"strconv"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// Batched studies (docs/engine.md, "Batched scoring"; docs/protocol.md
// §14): one call per (context, condition, order, repeat) shows every
// candidate of the context, in order k of judge.NewOrderPlan, and asks one
// score per candidate. Each candidate's score is stored as its own answer,
// at its usual coordinates with run label judge.OrderRunLabel(k, r)
// ("o3", "o3r1"); its position is recomputed from the order plan, whose
// seed is stored with the judge (parameter "order_seed"), so no column is
// added to the store.
//
// The items of one call are consecutive: the lead (position 0) first,
// then positions 1 … n−1; Item.Part is the position, the index of the
// candidate's score in the call's Result.Items (presentation order), as
// for a SAJA call's criteria. Each candidate's request key hashes the
// call's messages, then the order index and the candidate id, so an
// identical call answered elsewhere fills each candidate from the cache
// and two orders that happen to show the same sequence (n ≤ 2, or k ≥ 2n)
// are still separate calls.

// Judge parameters a listwise study stores with its judge (and hashes into
// every request key): ParamBatched is true, ParamOrderSeed the order
// plan's seed (store.Judge.OrderSeed reads them back).
const (
	ParamBatched   = store.ParamBatched
	ParamOrderSeed = store.ParamOrderSeed
)

// DefaultOrderSeed is the order plan's seed when none is given.
const DefaultOrderSeed = 42

// BatchedJudgeName is the default stored name of a listwise study's judge:
// DefaultJudgeName + "-batched", apart from the pointwise judge's answers.
func BatchedJudgeName(cfg judge.Config) string { return DefaultJudgeName(cfg) + "-batched" }

// IsBatched reports whether the plan is a listwise study's.
func (p *Plan) IsBatched() bool { return p.Spec.Orders > 0 }

// runLabel is an item's stored run label.
func (p *Plan) runLabel(it *Item) string {
	if p.Spec.Orders > 0 {
		return judge.OrderRunLabel(int(it.Order), int(it.Run))
	}
	return strconv.Itoa(int(it.Run))
}

// batchedItems fills a batched plan's items (planHead has checked the
// spec and set the renderer and conditions).
func (p *Plan) batchedItems(ctx context.Context, st *store.Store) error {
	spec := p.Spec
	if spec.Probes != nil && len(p.planned) == 0 {
		return fmt.Errorf("engine: probes: nothing planned")
	}
	K, R := spec.Orders, spec.Repeats
	total := int64(spec.Dataset.NumCandidates()) * int64(len(p.planned)) * int64(K) * int64(R)
	if total > MaxPlanRequests {
		return fmt.Errorf("engine: the listwise study has %d stored scores (%d candidates × %d conditions × %d orders × %d runs), more than the %d one plan holds; use fewer orders or runs",
			total, spec.Dataset.NumCandidates(), len(p.planned), K, R, MaxPlanRequests)
	}
	keyer, err := store.NewKeyer(p.Judge.Backend, spec.Config.Model, p.Judge.Params)
	if err != nil {
		return err
	}
	p.orders = make([]judge.OrderPlan, len(spec.Dataset.Contexts))
	p.Items = make([]Item, 0, total)
	msgs := make([]store.Message, 0, 4)
	for ci, c := range spec.Dataset.Contexts {
		if err := ctx.Err(); err != nil {
			return err
		}
		if msgs, err = p.batchedContextItems(ci, c, keyer, msgs); err != nil {
			return err
		}
	}
	return p.resolve(ctx, st)
}

// batchedContextItems adds the items of context ci: every planned
// condition, order and run, one item a candidate of each call (msgs is
// scratch space, returned for the next context).
func (p *Plan) batchedContextItems(ci int, c model.Context, keyer *store.Keyer, msgs []store.Message) ([]store.Message, error) {
	spec := p.Spec
	K, R := spec.Orders, spec.Repeats
	ids := make([]string, len(c.Candidates))
	for i, cand := range c.Candidates {
		ids[i] = cand.ID
	}
	op := judge.NewOrderPlan(spec.OrderSeed, c.ID, ids)
	p.orders[ci] = op
	n := len(ids)
	if n == 0 {
		return msgs, nil
	}
	// {"scores": {"1": 7, …}}: about 4 tokens a candidate.
	out := 4*n + 4
	if spec.Config.MaxTokens > 0 {
		out = min(out, spec.Config.MaxTokens)
	}
	for _, condi := range p.planned {
		for k := range K {
			order := op.Order(k)
			req, err := p.renderOrder(c, order, p.conds[condi])
			if err != nil {
				return msgs, fmt.Errorf("engine: render %s order %d: %w", c.ID, k, err)
			}
			in := EstimateTokens(req.Messages)
			for r := range R {
				first := len(p.Items)
				for pos, ki := range order {
					msgs = msgs[:0]
					for _, m := range req.Messages {
						msgs = append(msgs, store.Message(m))
					}
					msgs = append(msgs, store.Message{Role: "order", Content: strconv.Itoa(k)},
						store.Message{Role: "candidate", Content: ids[ki]})
					it := Item{Run: int32(r), Order: int16(k), Context: int32(ci), Candidate: int32(ki), Condition: int16(condi),
						Lead: int32(first), Part: int16(pos), key: keyer.Sum(msgs)}
					if pos == 0 {
						it.InTokens, it.OutTokens = int32(in), int32(out)
					}
					p.Items = append(p.Items, it)
				}
			}
		}
	}
	return msgs, nil
}

// renderOrder renders the batched request showing c's candidates in order.
func (p *Plan) renderOrder(c model.Context, order []int, cond banks.Condition) (banks.Request, error) {
	cands := make([]model.Candidate, len(order))
	for pos, i := range order {
		cands[pos] = c.Candidates[i]
	}
	return p.render.RenderBatch(c, cands, cond)
}

// batchedRequest renders a batched plan's item: the call of its order.
func (p *Plan) batchedRequest(it *Item) (banks.Request, error) {
	c := p.Spec.Dataset.Contexts[it.Context]
	return p.renderOrder(c, p.orders[it.Context].Order(int(it.Order)), p.conds[it.Condition])
}
