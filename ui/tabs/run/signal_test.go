package run

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/shareddata"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/ratio"
)

var sinkMsg tea.Msg

// BenchmarkSignalSummEval is one recomputation of the ratio panel (read the
// stored scores, bootstrap the ratios) on full SummEval × 38 conditions
// answered by the offline judge: what the Run tab pays every
// ratio.Every during a run (B=200) and once at its end (B=2000), off the UI
// goroutine. Skipped without the shared data.
func BenchmarkSignalSummEval(b *testing.B) {
	path := shareddata.Path(b, "summeval/data.json")
	st, err := store.Open(b.Context(), b.TempDir()+"/prism.db")
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	bank, err := banks.Builtin("quality")
	if err != nil {
		b.Fatal(err)
	}
	ds, err := datasets.Load(datasets.FormatSummEval, path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	if err := st.PutDataset(ctx, ds, false); err != nil {
		b.Fatal(err)
	}
	spec := engine.Spec{Dataset: ds, Bank: bank, JudgeName: "offline", Config: engineDefaults(), Repeats: 1}
	p, err := engine.NewPlan(ctx, st, spec)
	if err != nil {
		b.Fatal(err)
	}
	judges, err := engine.NewJudges(spec.Config, 1, nil)
	if err != nil {
		b.Fatal(err)
	}
	r, err := engine.Start(ctx, st, judges, p, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for range r.Events() {
	}
	if _, err := r.Wait(); err != nil {
		b.Fatal(err)
	}
	for _, resamples := range []int{ratio.LiveResamples, ratio.FinalResamples} {
		b.Run(fmt.Sprintf("B=%d", resamples), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m := signalCmd(ctx, st, ds.Name, "offline", p.BankHash, resamples, false)().(signalMsg)
				if m.err != nil || m.view.Scores != 60800 {
					b.Fatalf("%v %+v", m.err, m.view)
				}
				sinkMsg = m
			}
		})
	}
}
