package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/store"
)

// A study of the embedded demo (60 candidates) under the quality bank's 38
// conditions with the offline simulator: plan, run, and plan again.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "prism-example")
	defer os.RemoveAll(dir)
	st, _ := store.Open(ctx, filepath.Join(dir, "ws.db"))
	defer st.Close()
	d := datasets.Demo()
	_ = st.PutDataset(ctx, d, false)
	bank, _ := banks.Builtin("quality")

	spec := engine.Spec{Dataset: d, Bank: bank, BankSource: "builtin:quality", JudgeName: "offline",
		Config: judge.Defaults(), Repeats: 1, Limits: engine.Limits{Concurrency: 4}}
	plan, err := engine.NewPlan(ctx, st, spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("to send:", plan.Estimate.Send)

	judges, _ := engine.NewJudges(spec.Config, spec.Repeats, nil)
	run, _ := engine.Start(ctx, st, judges, plan, engine.Options{})
	go func() {
		for range run.Events() { // a TUI would forward these
		}
	}()
	sum, err := run.Wait()
	fmt.Println("answered:", sum.Answered, "failed:", sum.Failed, "err:", err)

	again, _ := engine.NewPlan(ctx, st, spec)
	fmt.Println("to send after the run:", again.Estimate.Send)
	// Output:
	// to send: 2280
	// answered: 2280 failed: 0 err: <nil>
	// to send after the run: 0
}
