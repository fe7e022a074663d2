package calib

import (
	"context"
	"slices"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"
)

// Options.Progress sees every outer fold and then the bootstrap, one step
// at a time, within-context (folds in parallel) and global (in order);
// the report is the same with and without it.
func TestFitProgress(t *testing.T) {
	for _, global := range []bool{false, true} {
		rows, labels := calibtest.Synth(40, 6, 3, 11)
		opts := DefaultOptions()
		opts.Bootstrap = 200
		opts.Global = global
		plain, _, err := Fit(context.Background(), rows, labels, opts)
		if err != nil {
			t.Fatal(err)
		}
		var dones, totals []int
		opts.Progress = func(done, total int) {
			dones, totals = append(dones, done), append(totals, total)
		}
		r, _, err := Fit(context.Background(), rows, labels, opts)
		if err != nil {
			t.Fatal(err)
		}
		want := []int{1, 2, 3, 4, 5, 6} // 5 folds, then the bootstrap
		if !slices.Equal(dones, want) {
			t.Errorf("global %v: progress %v, want %v", global, dones, want)
		}
		for _, tot := range totals {
			if tot != opts.Folds+1 {
				t.Errorf("global %v: total %d, want %d", global, tot, opts.Folds+1)
			}
		}
		if r.Methods.PRISM.Mean != plain.Methods.PRISM.Mean || r.Methods.PRISM.CI != plain.Methods.PRISM.CI {
			t.Errorf("global %v: a progress callback changed the fit", global)
		}
	}
}
