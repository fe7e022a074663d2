package engine

import (
	"fmt"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/model/store"
)

// cursor walks a pointwise bank plan's items in send order — context,
// then candidate, then condition, then run: everything sent about one
// candidate goes out together, so a server's prefix cache sees the same
// source text back to back — and hands them out a few at a time. NewPlan
// takes them all at once; a streamed plan (stream.go) takes a chunk at a
// time, so a run never holds more than a few chunks of its study.
type cursor struct {
	p     *Plan
	keyer *store.Keyer
	sel   []banks.Condition // the planned conditions, in order
	out   int32             // estimated completion tokens of every request

	ci, ki int // the next candidate to render: Contexts[ci].Candidates[ki]
	// The rendered candidate being handed out: its key and prompt tokens
	// per planned condition, and the next (condition, run) to hand out.
	keys   [][32]byte
	ins    []int32
	si, r  int
	loaded bool
	msgs   []store.Message
}

// newCursor starts a cursor at p's first item.
func (p *Plan) newCursor() (*cursor, error) {
	keyer, err := store.NewKeyer(p.Judge.Backend, p.Spec.Config.Model, p.Judge.Params)
	if err != nil {
		return nil, err
	}
	sel := make([]banks.Condition, len(p.planned))
	for i, c := range p.planned {
		sel[i] = p.conds[c]
	}
	return &cursor{p: p, keyer: keyer, sel: sel, out: int32(outputTokens(p.Spec.Config)),
		keys: make([][32]byte, len(sel)), ins: make([]int32, len(sel)), msgs: make([]store.Message, 0, 2)}, nil
}

// done reports whether every item has been handed out.
func (c *cursor) done() bool { return !c.loaded && !c.seek() }

// next appends up to n more items to dst, their Lead set to their index
// in dst (a pointwise item is its own call). It renders a candidate's
// conditions when it reaches it; a render error names the candidate.
func (c *cursor) next(dst []Item, n int) ([]Item, error) {
	R := c.p.Spec.Repeats
	for added := 0; added < n; {
		if !c.loaded {
			if !c.seek() {
				break
			}
			if err := c.load(); err != nil {
				return dst, err
			}
		}
		for c.si < len(c.sel) && added < n {
			dst = append(dst, Item{
				Run: int32(c.r), Context: int32(c.ci), Candidate: int32(c.ki), Condition: int16(c.p.planned[c.si]),
				InTokens: c.ins[c.si], OutTokens: c.out, Lead: int32(len(dst)), Part: -1,
				key: c.keys[c.si],
			})
			added++
			if c.r++; c.r == R {
				c.r = 0
				c.si++
			}
		}
		if c.si == len(c.sel) {
			c.loaded = false
			c.ki++
		}
	}
	return dst, nil
}

// seek moves (ci, ki) to the next candidate, skipping contexts without
// any; false when none is left.
func (c *cursor) seek() bool {
	ctxs := c.p.Spec.Dataset.Contexts
	for c.ci < len(ctxs) && c.ki >= len(ctxs[c.ci].Candidates) {
		c.ci++
		c.ki = 0
	}
	return c.ci < len(ctxs)
}

// load renders and keys the planned conditions of candidate (ci, ki).
func (c *cursor) load() error {
	ctx := c.p.Spec.Dataset.Contexts[c.ci]
	cand := ctx.Candidates[c.ki]
	reqs, err := c.p.render.RenderAll(ctx, cand, c.sel)
	if err != nil {
		return fmt.Errorf("engine: render %s/%s: %w", ctx.ID, cand.ID, err)
	}
	for si := range c.sel {
		req := &reqs[si]
		c.msgs = c.msgs[:0]
		for _, m := range req.Messages {
			c.msgs = append(c.msgs, store.Message(m))
		}
		c.keys[si] = c.keyer.Sum(c.msgs)
		c.ins[si] = int32(EstimateTokens(req.Messages))
	}
	c.si, c.r, c.loaded = 0, 0, true
	return nil
}

// finishContext appends the items left of the context of dst's last item,
// so that a chunk of a streamed plan ends at a context's end: a context's
// byte-identical requests (the same summary twice in one document) then
// fall in one chunk, whose plan sends them once (Plan.sameCalls).
func (c *cursor) finishContext(dst []Item) ([]Item, error) {
	if len(dst) == 0 {
		return dst, nil
	}
	ci := int(dst[len(dst)-1].Context)
	var err error
	R := c.p.Spec.Repeats
	for (c.loaded || c.seek()) && c.ci == ci {
		left := len(c.sel) * R // the candidate's items not handed out
		if c.loaded {
			left -= c.si*R + c.r
		}
		if dst, err = c.next(dst, left); err != nil {
			return dst, err
		}
	}
	return dst, nil
}
