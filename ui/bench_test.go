package ui

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/prism-eval/prism/ui/ratio"
	runtab "github.com/prism-eval/prism/ui/tabs/run"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/shareddata"
	"github.com/prism-eval/prism/ui/tab"
)

var sinkView tea.View

// summEvalSized is SummEval itself when the shared data is present, else a
// dataset of its shape: 100 contexts × 16 candidates.
func summEvalSized(b testing.TB) *model.Dataset {
	if dir, ok := shareddata.Dir(); ok {
		if ds, err := datasets.Load(datasets.FormatSummEval, dir+"/summeval/data.json"); err == nil {
			return ds
		}
	}
	ds := &model.Dataset{Name: "summeval-shaped", Task: model.TaskNewsSummary, Metric: model.MetricSpearman}
	for c := range 100 {
		ctx := model.Context{ID: fmt.Sprintf("dm-test-%040d", c), Source: "An article."}
		for k := range 16 {
			ctx.Candidates = append(ctx.Candidates, model.Candidate{ID: fmt.Sprintf("M%d", k), Text: "A summary.", Human: 3})
		}
		ds.Contexts = append(ds.Contexts, ctx)
	}
	return ds
}

// syntheticResults are the results of a run over ds × bank in plan order,
// with scores and Δ from a fixed pattern.
func syntheticResults(ds *model.Dataset, b *banks.Bank) []engine.Event {
	conds := b.Conditions()
	var out []engine.Event
	i := 0
	for _, c := range ds.Contexts {
		for _, k := range c.Candidates {
			for _, cond := range conds {
				s := float64(3 + i%5)
				out = append(out, engine.Event{Kind: engine.EventResult,
					Progress: engine.Progress{Total: ds.NumCandidates() * len(conds), Done: i + 1, Sent: i + 1, Answered: i + 1,
						Rate: 1000, ETA: time.Minute, Elapsed: time.Minute, Priced: true},
					Result: engine.Result{Context: c.ID, Candidate: k.ID, Probe: cond.Probe, Wording: cond.Wording,
						Score: s, HasScore: true}})
				i++
			}
		}
	}
	return out
}

// runningApp is an App on the Run tab of a SummEval-sized study whose
// run has applied `done` results and has a ratio panel.
func runningApp(b *testing.B, w, h, done int) (*App, []engine.Event) {
	s := demoStudy(b)
	s.Dataset = summEvalSized(b)
	a := New(s)
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	a.tab = tab.Run
	lr := runtab.NewLive(s.Bank, 9)
	lr.SetPhase(runtab.PhaseRunning)
	evs := syntheticResults(s.Dataset, s.Bank)
	for _, ev := range evs[:done] {
		lr.Apply(ev)
	}
	sv := &ratio.View{Resamples: ratio.LiveResamples, Scores: done, NeutralRMS: 0.7, NeutralN: 5000}
	for i, attr := range s.Bank.Attributes {
		r := 0.8 + 0.15*float64(i)
		sv.Rows = append(sv.Rows, ratio.Row{Name: attr.Name, N: 400, Ratio: r, Lo: r - 0.2, Hi: r + 0.25, Pass: r > 1.2, HasSignal: true})
	}
	sv.Pooled = ratio.Row{Name: "pooled", N: 3200, Ratio: 1.2, Lo: 1.1, Hi: 1.3, Pass: true, HasSignal: true}
	a.run.ShowLive(lr, sv)
	return a, evs
}

// BenchmarkRunViewSummEval is one frame of the Run tab while a run on
// a SummEval-sized study (1,600 candidates × 38 conditions) streams 1,000
// responses per second into a 60 fps display: each op applies 17 results
// (1000/60, rounded up) and draws the frame.
func BenchmarkRunViewSummEval(b *testing.B) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			a, evs := runningApp(b, size[0], size[1], 30000)
			const perFrame = 17
			next := 30000
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				for range perFrame {
					a.run.Live().Apply(evs[next%len(evs)])
					next++
				}
				sinkView = a.View()
			}
		})
	}
}

// TestMemorySummEvalPlan reports the heap the App holds with full SummEval
// × 38 conditions loaded: the dataset, the plan of 60,800 requests, and a
// finished run's live state. Run with -v to see the figure.
func TestMemorySummEvalPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("loads SummEval")
	}
	path := shareddata.Path(t, "summeval/data.json")
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	s := demoStudy(t)
	ds, err := datasets.Load(datasets.FormatSummEval, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Store.PutDataset(t.Context(), ds, false); err != nil {
		t.Fatal(err)
	}
	s.Dataset = ds
	a := New(s)
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	drive(a, a.run.Replan())
	if a.run.Plan() == nil {
		t.Fatal(a.run.PlanErr())
	}
	if got := a.run.Plan().Estimate.Requests; got != 1600*38 {
		t.Fatalf("%d requests, want 60800", got)
	}
	lr := runtab.NewLive(s.Bank, 9)
	for _, ev := range syntheticResults(ds, s.Bank) {
		lr.Apply(ev)
	}
	a.run.ShowLive(lr, nil)
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("SummEval (%d candidates) × %d conditions: plan of %d requests; heap in use %.1f MiB (%.1f MiB more than before loading); total allocated while loading %.1f MiB",
		ds.NumCandidates(), len(s.Bank.Conditions()), a.run.Plan().Estimate.Requests,
		float64(after.HeapInuse)/(1<<20), float64(int64(after.HeapInuse)-int64(before.HeapInuse))/(1<<20),
		float64(after.TotalAlloc-before.TotalAlloc)/(1<<20))
	runtime.KeepAlive(a)
}
