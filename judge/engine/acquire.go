package engine

import (
	"context"

	"github.com/prism-eval/prism/model/store"
)

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
