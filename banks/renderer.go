package banks

import (
	"fmt"

	"github.com/prism-eval/prism/model"
)

// Renderer renders requests for one task from a frozen copy of a bank,
// with its hash and conditions computed once. Use it when rendering many
// requests (a study has tens of thousands); Bank.Render recomputes the
// hash on every call so that it always matches the bank's current wording.
// A Renderer is safe for concurrent use.
type Renderer struct {
	bank     *Bank
	task     Task
	taskText string // the user message's task section, rendered once
	hash     string
	conds    map[condKey]string // (probe, wording) → instruction
}

type condKey struct {
	probe   string
	wording int
}

// Renderer returns a Renderer for task over a copy of the bank taken now;
// later edits of b do not affect it.
func (b *Bank) Renderer(task string) (*Renderer, error) {
	if _, ok := b.Tasks[task]; !ok {
		return nil, b.noTask(task)
	}
	cp := b.Clone()
	r := &Renderer{bank: cp, task: cp.Tasks[task], hash: cp.Hash(), conds: map[condKey]string{}}
	r.taskText = taskText(r.task)
	for _, c := range cp.Conditions() {
		r.conds[condKey{c.Probe, c.Wording}] = c.Instruction
	}
	return r, nil
}

// Hash is the hash of the bank the Renderer was made from.
func (r *Renderer) Hash() string { return r.hash }

// Render is Bank.Render on the frozen bank.
func (r *Renderer) Render(c model.Context, cand model.Candidate, cond Condition) (Request, error) {
	if err := r.check(cond); err != nil {
		return Request{}, err
	}
	return renderWith(r.hash, r.task, c, cand, cond, userMessage(r.task, r.taskText, c, cand)), nil
}

// RenderAll renders cand under each of conds, in order: the requests of
// Render, rendering the user message once since it is the same under
// every condition (the requests share it).
func (r *Renderer) RenderAll(c model.Context, cand model.Candidate, conds []Condition) ([]Request, error) {
	for _, cond := range conds {
		if err := r.check(cond); err != nil {
			return nil, err
		}
	}
	user := userMessage(r.task, r.taskText, c, cand)
	out := make([]Request, len(conds))
	for i, cond := range conds {
		out[i] = renderWith(r.hash, r.task, c, cand, cond, user)
	}
	return out, nil
}

// Lengths are the byte lengths of a rendered request's two messages.
type Lengths struct{ System, User int }

// Lengths appends to dst, for each of conds, the lengths of the messages
// RenderAll renders (a system message, then a user message), counted
// without building them: what a planner that estimates tokens needs of a
// request it does not send yet.
func (r *Renderer) Lengths(c model.Context, cand model.Candidate, conds []Condition, dst []Lengths) ([]Lengths, error) {
	for _, cond := range conds {
		if err := r.check(cond); err != nil {
			return dst, err
		}
	}
	user := userMessageLen(r.task, r.taskText, c, cand)
	for _, cond := range conds {
		dst = append(dst, Lengths{System: systemLen(r.task, cond), User: user})
	}
	return dst, nil
}

// RenderBatch is Bank.RenderBatch on the frozen bank.
func (r *Renderer) RenderBatch(c model.Context, cands []model.Candidate, cond Condition) (Request, error) {
	if err := r.check(cond); err != nil {
		return Request{}, err
	}
	return renderBatch(r.hash, r.task, c, cands, cond)
}

func (r *Renderer) check(cond Condition) error {
	instr, ok := r.conds[condKey{cond.Probe, cond.Wording}]
	if !ok {
		return fmt.Errorf("banks: bank %q has no condition %s wording %d", r.bank.Name, cond.Probe, cond.Wording)
	}
	if instr != cond.Instruction {
		return fmt.Errorf("banks: condition %s wording %d does not carry bank %q's instruction", cond.Probe, cond.Wording, r.bank.Name)
	}
	return nil
}
