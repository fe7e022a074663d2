package cli

import (
	"context"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/judge/offline"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// acquireDemoJudges stores the answers of the offline simulator's
// variants (offline-strict, offline-verbose; docs/judge.md) to the demo's
// dataset and bank, so that the Compare tab has judges with different
// biases to compare before anyone runs a judge. Offline and small: the
// demo's 60 candidates under the bank's conditions, one run each.
func acquireDemoJudges(ctx context.Context, st *store.Store, ds *model.Dataset, b *banks.Bank, source string) error {
	for _, m := range offline.Variants() {
		cfg := judge.Defaults()
		cfg.Model = m
		spec := engine.Spec{Dataset: ds, Bank: b, BankSource: source, JudgeName: engine.DefaultJudgeName(cfg), Config: cfg, Repeats: 1}
		if _, err := engine.Acquire(ctx, st, spec); err != nil {
			return err
		}
	}
	return nil
}
