package engine

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// BenchmarkEngineRealistic is the realistic-latency target (docs/performance.md,
// "Targets"): the engine against a local server that answers after a real
// judge's latency L = 300 ms or 1 s, at concurrency C = 16, 64 and 256,
// keeps at least 98% of C/L busy. Each op sends C/2 candidates × 38
// conditions = 19·C requests (19 full waves: the bound N·L/C is reached only
// when no wave waits on the process). It reports %-of-C/L, this process's
// CPU per request (user + system) and the heap in use after the run.
// About 75 s in all: go test ./judge/engine -run '^$' -bench EngineRealistic -benchtime 1x
func BenchmarkEngineRealistic(b *testing.B) {
	for _, lat := range []time.Duration{300 * time.Millisecond, time.Second} {
		for _, conc := range []int{16, 64, 256} {
			b.Run(fmt.Sprintf("L=%v/C=%d", lat, conc), func(b *testing.B) { benchRealistic(b, conc, lat) })
		}
	}
}

func benchRealistic(b *testing.B, conc int, latency time.Duration) {
	s := newChatServer(b)
	s.latency = latency
	var n int
	var wall, cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		d := benchDataset(conc / 2)
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
		c0 := processCPU()
		t0 := time.Now()
		b.StartTimer()
		r, err := Start(context.Background(), st, js, p, Options{})
		if err != nil {
			b.Fatal(err)
		}
		benchSink, err = r.Wait()
		b.StopTimer()
		wall += time.Since(t0)
		cpu += processCPU() - c0
		if err != nil || benchSink.Written != len(p.Items) {
			b.Fatalf("%+v %v", benchSink.Progress, err)
		}
		n += len(p.Items)
		b.StartTimer() // b.Loop wants the timer running
	}
	bound := time.Duration(n) * latency / time.Duration(conc)
	b.ReportMetric(100*bound.Seconds()/wall.Seconds(), "%-of-C/L")
	// The in-process server's CPU is counted too: an upper bound on the
	// client's.
	b.ReportMetric(float64(cpu.Microseconds())/float64(n), "µs-cpu/req")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
}

// processCPU is this process's user + system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
