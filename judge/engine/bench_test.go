package engine

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/shareddata"
	"github.com/prism-eval/prism/model/synthstudy"
)

var benchSink Summary

// benchDataset has n candidates (one per context) of the news-summary task.
func benchDataset(n int) *model.Dataset {
	d := &model.Dataset{Name: "bench", Format: "jsonl", Task: model.TaskNewsSummary, Metric: model.MetricSpearman}
	for i := range n {
		d.Contexts = append(d.Contexts, model.Context{ID: fmt.Sprintf("d%d", i),
			Source:     fmt.Sprintf("Article %d. The council voted on Tuesday to build a bridge over the river.", i),
			Candidates: []model.Candidate{{ID: "s", Text: fmt.Sprintf("Summary %d: a bridge is approved.", i), Human: float64(i % 5)}}})
	}
	return d
}

// benchServerRun sends a fresh plan of n candidates × 38 conditions to a
// local server at the given concurrency and reports requests per second.
func benchServerRun(b *testing.B, candidates, conc int, latency time.Duration) {
	b.ReportAllocs()
	s := newChatServer(b)
	s.latency = latency
	var total int
	var elapsed time.Duration
	for b.Loop() {
		b.StopTimer()
		d := benchDataset(candidates)
		st, _ := openStore(b, d)
		spec := serverSpec(b, s, d, 1, Limits{Concurrency: conc})
		p, err := NewPlan(context.Background(), st, spec)
		if err != nil {
			b.Fatal(err)
		}
		js, err := NewJudges(spec.Config, 1, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		r, err := Start(context.Background(), st, js, p, Options{})
		if err != nil {
			b.Fatal(err)
		}
		benchSink, err = r.Wait()
		elapsed += time.Since(t0)
		if err != nil || benchSink.Written != len(p.Items) {
			b.Fatalf("%+v %v", benchSink.Progress, err)
		}
		total += len(p.Items)
	}
	b.ReportMetric(float64(total)/elapsed.Seconds(), "req/s")
}

// BenchmarkEngineLocalNoLatency measures the engine's own overhead: HTTP
// client, worker pool, limiter and batched store writes against a local
// server that answers at once (20 candidates × 38 = 760 requests per op).
func BenchmarkEngineLocalNoLatency(b *testing.B) { benchServerRun(b, 20, 8, 0) }

// BenchmarkEngineLatency100ms sends 79 × 38 = 3,002 requests to a server
// that takes 100 ms per answer, at concurrency 64: the ceiling is 640
// requests/s, the target at least 95% of it (608).
func BenchmarkEngineLatency100ms(b *testing.B) { benchServerRun(b, 79, 64, 100*time.Millisecond) }

// BenchmarkOfflineSummEval38 runs the offline judge over SummEval × the
// quality bank's 38 conditions (60,800 requests) into a new workspace:
// plan, judge calls and store writes. Target: under 10 s per op.
func BenchmarkOfflineSummEval38(b *testing.B) {
	path := shareddata.Path(b, "summeval/data.json")
	b.ReportAllocs()
	d, err := datasets.Load("summeval", path)
	if err != nil {
		b.Fatal(err)
	}
	bank, err := banks.Builtin("quality")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		st, _ := openStore(b, d)
		b.StartTimer()
		spec := Spec{Dataset: d, Bank: bank, JudgeName: "offline", Config: judge.Defaults(), Repeats: 1, Limits: Limits{Concurrency: 2}}
		p, err := NewPlan(context.Background(), st, spec)
		if err != nil {
			b.Fatal(err)
		}
		js, err := NewJudges(spec.Config, 1, nil)
		if err != nil {
			b.Fatal(err)
		}
		r, err := Start(context.Background(), st, js, p, Options{})
		if err != nil {
			b.Fatal(err)
		}
		benchSink, err = r.Wait()
		if err != nil || benchSink.Written != 60800 {
			b.Fatalf("%+v %v", benchSink.Progress, err)
		}
	}
}

// BenchmarkOfflineSynth100x16 runs the offline judge over a synthetic
// study of 100 contexts × 16 candidates × the quality bank's 38
// conditions (60,800 requests) into a new workspace: plan, judge calls
// and store writes, the path of prism run --backend offline. The
// dataset is built once; each op opens a fresh workspace.
func BenchmarkOfflineSynth100x16(b *testing.B) {
	d := synthstudy.Dataset(100, 16, 1)
	bank, err := banks.Builtin("quality")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		st, _ := openStore(b, d)
		b.StartTimer()
		spec := Spec{Dataset: d, Bank: bank, JudgeName: "offline", Config: judge.Defaults(), Repeats: 1}
		p, err := NewPlan(context.Background(), st, spec)
		if err != nil {
			b.Fatal(err)
		}
		js, err := NewJudges(spec.Config, 1, nil)
		if err != nil {
			b.Fatal(err)
		}
		r, err := Start(context.Background(), st, js, p, Options{})
		if err != nil {
			b.Fatal(err)
		}
		benchSink, err = r.Wait()
		if err != nil || benchSink.Written != 60800 {
			b.Fatalf("%+v %v", benchSink.Progress, err)
		}
	}
}

// BenchmarkEstimatePlanDemo100000Runs estimates the demo study × the
// quality bank × 100,000 runs (228,000,000 requests) as prism run
// --dry-run does: its time and memory are those of the 2,280 conditions,
// not of the requests.
func BenchmarkEstimatePlanDemo100000Runs(b *testing.B) {
	d := datasets.Demo()
	st, _ := openStore(b, d)
	spec := Spec{Dataset: d, Bank: quality(b), JudgeName: "offline", Config: judge.Defaults(), Repeats: 100_000}
	b.ReportAllocs()
	for b.Loop() {
		p, err := EstimatePlan(context.Background(), st, spec)
		if err != nil || p.Estimate.Requests != 228_000_000 {
			b.Fatalf("%+v %v", p.Estimate, err)
		}
	}
}

// BenchmarkOfflineRunMemory runs the offline judge over a synthetic study
// of 100 contexts × 16 candidates × 38 conditions at 1 and 4 runs (60,800
// and 243,200 requests), from a whole plan (NewPlan) and a streamed one
// (NewRunPlan, what prism run starts), and reports the peak of the
// heap's objects over the op (sampled every millisecond): a streamed
// run's does not grow with its requests (docs/performance.md).
func BenchmarkOfflineRunMemory(b *testing.B) {
	d := synthstudy.Dataset(100, 16, 1)
	bank := quality(b)
	for _, streamed := range []bool{false, true} {
		for _, runs := range []int{1, 4} {
			name := fmt.Sprintf("whole/%druns", runs)
			if streamed {
				name = fmt.Sprintf("streamed/%druns", runs)
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				var peak uint64
				for b.Loop() {
					b.StopTimer()
					st, _ := openStore(b, d)
					runtime.GC()
					stop := samplePeakHeap(&peak)
					b.StartTimer()
					spec := Spec{Dataset: d, Bank: bank, JudgeName: "offline", Config: judge.Defaults(), Repeats: runs}
					plan := NewPlan
					if streamed {
						plan = NewRunPlan
					}
					p, err := plan(context.Background(), st, spec)
					if err != nil {
						b.Fatal(err)
					}
					js, err := NewJudges(spec.Config, runs, nil)
					if err != nil {
						b.Fatal(err)
					}
					r, err := Start(context.Background(), st, js, p, Options{ProgressOnly: true})
					if err != nil {
						b.Fatal(err)
					}
					benchSink, err = r.Wait()
					if err != nil || benchSink.Written != 60800*runs {
						b.Fatalf("%+v %v", benchSink.Progress, err)
					}
					b.StopTimer()
					stop()
					b.StartTimer()
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			})
		}
	}
}

// samplePeakHeap raises *peak to the heap's object bytes every
// millisecond until the returned stop is called.
func samplePeakHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			*peak = max(*peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
