package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/openai/openaitest"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/shareddata"
	"github.com/prism-eval/prism/model/store"
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
		st, p, js := serverBenchRun(b, s, candidates, conc)
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
		p, js := planAndJudges(b, st, spec)
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
		st, p, js := serverBenchRun(b, s, conc/2, conc)
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

// The HTTP benchmarks (docs/performance.md, "Talking to a server") send
// requests to openaitest's server answering after benchLatency, run in a
// child process (this test binary, TestFakeJudgeProcess) so that the CPU
// time measured here is the client's alone. For each concurrency C they
// send about C × 150 requests (a bound of 3 s at 20 ms) and report:
//
//	%-of-bound   the bound N·L/C over the wall time (100: the server's
//	             latency is all the time there is)
//	µs-cpu/req   this process's user + system CPU per request
//	µs-sys/req   of which system (the kernel's, for this process)
//	conns        TCP connections the server saw opened
//	srv-µs-cpu/req  the server process's CPU per request (it must not be
//	             the bottleneck: on a 2-core machine, far below L·2/C)
//	srv-late-ms/req  how long after L the server's handler resumed, per
//	             request: time its timer adds that no client wins back
//	turnaround-µs  per request, the server's time from a connection's
//	             reply to its next request: the client's turnaround, with
//	             both processes' scheduling (docs/performance.md, "Bursts")
//	answers/append  (the engine's) responses per append to the journal
//
//	go test ./judge/engine -run '^$' -bench 'HTTP' -benchtime 1x -count 3
const benchLatency = 20 * time.Millisecond

const fakeJudgeEnv = "PRISM_BENCH_FAKEJUDGE"

// TestFakeJudgeProcess is the HTTP benchmarks' server process; as a test
// it does nothing.
func TestFakeJudgeProcess(t *testing.T) {
	lat := os.Getenv(fakeJudgeEnv)
	if lat == "" {
		t.Skip("the HTTP benchmarks' server process")
	}
	d, err := time.ParseDuration(lat)
	if err != nil {
		t.Fatal(err)
	}
	if err := openaitest.Serve("127.0.0.1:0", d, os.Stdout); err != nil {
		t.Fatal(err)
	}
}

// fakeJudge is a child process serving openaitest's server.
type fakeJudge struct {
	url string
	cmd *exec.Cmd
}

func startFakeJudge(b *testing.B, latency time.Duration) *fakeJudge {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFakeJudgeProcess$")
	cmd.Env = append(os.Environ(), fakeJudgeEnv+"="+latency.String())
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		b.Fatal(err)
	}
	f := &fakeJudge{url: strings.TrimSpace(url), cmd: cmd}
	b.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	return f
}

// stats reads the server's counters over a connection of its own.
func (f *fakeJudge) stats(b *testing.B) openaitest.Stats {
	b.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(strings.TrimSuffix(f.url, "/v1") + "/stats")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var s openaitest.Stats
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		b.Fatal(err)
	}
	return s
}

// httpMeasure accumulates one benchmark's runs.
type httpMeasure struct {
	n, conns       int64
	wall, cpu, sys time.Duration
	srvCPU, bound  time.Duration
	srvLate        time.Duration
	turn           time.Duration
	turns          int64
}

func (m *httpMeasure) report(b *testing.B) {
	if m.n == 0 {
		return
	}
	b.ReportMetric(100*m.bound.Seconds()/m.wall.Seconds(), "%-of-bound")
	b.ReportMetric(float64(m.cpu.Microseconds())/float64(m.n), "µs-cpu/req")
	b.ReportMetric(float64(m.sys.Microseconds())/float64(m.n), "µs-sys/req")
	b.ReportMetric(float64(m.srvCPU.Microseconds())/float64(m.n), "srv-µs-cpu/req")
	b.ReportMetric(m.srvLate.Seconds()*1e3/float64(m.n), "srv-late-ms/req")
	if m.turns > 0 {
		b.ReportMetric(float64(m.turn.Microseconds())/float64(m.turns), "turnaround-µs")
	}
	b.ReportMetric(float64(m.conns)/float64(b.N), "conns/op")
	b.ReportMetric(float64(m.n)/float64(b.N), "req/op")
}

// measure times send (which sends n requests at concurrency conc) with
// the benchmark's timer, this process's CPU and the server's counters.
func (m *httpMeasure) measure(b *testing.B, f *fakeJudge, n, conc int, send func()) {
	s0 := f.stats(b)
	user0, sys0 := openaitest.ProcessCPUSplit()
	t0 := time.Now()
	b.StartTimer()
	send()
	b.StopTimer()
	wall := time.Since(t0)
	user1, sys1 := openaitest.ProcessCPUSplit()
	s1 := f.stats(b)
	if got := s1.Requests - s0.Requests; got != int64(n) {
		b.Fatalf("the server answered %d requests, want %d", got, n)
	}
	m.n += int64(n)
	m.conns += s1.Conns - s0.Conns - 1 // the second stats call's own connection
	m.wall += wall
	m.cpu += user1 - user0 + sys1 - sys0
	m.sys += sys1 - sys0
	m.srvCPU += s1.CPU - s0.CPU
	m.srvLate += s1.TimerLate - s0.TimerLate
	m.turn += s1.Turnaround - s0.Turnaround
	m.turns += s1.Turnarounds - s0.Turnarounds
	m.bound += time.Duration(n) * benchLatency / time.Duration(conc)
}

var httpConcurrencies = []int{8, 32, 128}

// BenchmarkHTTPEngine runs the real engine (plan, Start, workers,
// limiter, the OpenAI client, store writes) on a fresh study of
// C × 4 candidates × 38 conditions. It also reports the answers each of
// the writer's batches held (answers/append: a server judge's batch is
// one append to the run's answer journal).
func BenchmarkHTTPEngine(b *testing.B) {
	for _, conc := range httpConcurrencies {
		b.Run(fmt.Sprintf("C=%d", conc), func(b *testing.B) {
			f := startFakeJudge(b, benchLatency)
			b.ReportAllocs()
			var m httpMeasure
			var commits atomic.Int64
			for b.Loop() {
				b.StopTimer()
				st, spec, p := httpStudy(b, f, conc)
				lim := NewLimiter(spec.Limits)
				js, err := NewJudges(spec.Config, 1, lim)
				if err != nil {
					b.Fatal(err)
				}
				opts := Options{Limiter: lim, committed: func(int) { commits.Add(1) }}
				m.measure(b, f, len(p.Sends), conc, func() {
					r, err := Start(context.Background(), st, js, p, opts)
					if err != nil {
						b.Fatal(err)
					}
					benchSink, err = r.Wait()
					if err != nil || benchSink.Stored != len(p.Items) {
						b.Fatalf("%+v %v", benchSink.Progress, err)
					}
				})
				b.StartTimer()
			}
			m.report(b)
			b.ReportMetric(float64(m.n)/float64(commits.Load()), "answers/append")
		})
	}
}

// BenchmarkHTTPClient is the engine's send path without the plan and the
// store: C workers each taking a request, waiting on the limiter, scoring
// it with the judge NewJudges builds (the OpenAI client over the
// limiter's observing transport) and adjusting the limiter by its usage.
// The same rendered requests as BenchmarkHTTPEngine, C × 152 of them.
func BenchmarkHTTPClient(b *testing.B) {
	for _, conc := range httpConcurrencies {
		b.Run(fmt.Sprintf("C=%d", conc), func(b *testing.B) {
			f := startFakeJudge(b, benchLatency)
			_, spec, p := httpStudy(b, f, conc)
			b.ReportAllocs()
			var m httpMeasure
			for b.Loop() {
				b.StopTimer()
				lim := NewLimiter(spec.Limits)
				js, err := NewJudges(spec.Config, 1, lim)
				if err != nil {
					b.Fatal(err)
				}
				m.measure(b, f, len(p.Sends), conc, func() {
					work := make(chan int)
					var wg sync.WaitGroup
					ctx := context.Background()
					for range conc {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for i := range work {
								it := &p.Items[i]
								if err := lim.Wait(ctx, int(it.InTokens+it.OutTokens)); err != nil {
									b.Error(err)
									return
								}
								req, err := p.Request(i)
								if err != nil {
									b.Error(err)
									return
								}
								res, err := js[0].Score(ctx, req)
								if err != nil || !res.HasScore {
									b.Errorf("%+v %v", res, err)
									return
								}
								lim.Adjust(res.PromptTokens + res.CompletionTokens - int(it.InTokens) - int(it.OutTokens))
							}
						}()
					}
					for _, i := range p.Sends {
						work <- i
					}
					close(work)
					wg.Wait()
				})
				b.StartTimer()
			}
			m.report(b)
		})
	}
}

// httpStudy plans a new study of C × 4 candidates × the quality bank
// against f, in a workspace of its own.
func httpStudy(b *testing.B, f *fakeJudge, conc int) (*store.Store, Spec, *Plan) {
	b.Helper()
	d := benchDataset(conc * 4)
	st, _ := openStore(b, d)
	spec := httpSpec(b, f.url, d, conc)
	p, err := NewPlan(context.Background(), st, spec)
	if err != nil {
		b.Fatal(err)
	}
	return st, spec, p
}

// httpSpec is the quality bank over d against url at concurrency conc,
// with the default judge configuration (retries, timeouts) of prism run
// --response-format none.
func httpSpec(b *testing.B, url string, d *model.Dataset, conc int) Spec {
	cfg := judge.Defaults()
	cfg.Backend, cfg.Model, cfg.BaseURL = judge.BackendOpenAI, "m", url
	cfg.ResponseFormat = judge.FormatNone
	return Spec{Dataset: d, Bank: quality(b), BankSource: "builtin:quality", JudgeName: "srv", Config: cfg, Repeats: 1, Limits: Limits{Concurrency: conc}}
}

// docs/scale.sh's httprun row starts a fake server per run and reads the
// address it prints from a file: it must read the new server's whole
// address, never the one a stopped server left there or half a line
// (issue 42, item 17). The script's -selftest starts a server that
// prints late and in two pieces over a stale address.
func TestScaleShReadsItsOwnServersAddress(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	out, err := exec.Command(bash, "../../docs/scale.sh", "-selftest", "-d", t.TempDir()).CombinedOutput()
	if err != nil {
		t.Fatalf("scale.sh -selftest: %v\n%s", err, out)
	}
}

// serverBenchRun is a plan of candidates (one a context) for the fake
// server s at concurrency conc, its store and its judges.
func serverBenchRun(b *testing.B, s *chatServer, candidates, conc int) (*store.Store, *Plan, []judge.Judge) {
	b.Helper()
	d := benchDataset(candidates)
	st, _ := openStore(b, d)
	p, js := planAndJudges(b, st, serverSpec(b, s, d, 1, Limits{Concurrency: conc}))
	return st, p, js
}

// planAndJudges is NewPlan of spec and one judge of its configuration.
func planAndJudges(b *testing.B, st *store.Store, spec Spec) (*Plan, []judge.Judge) {
	b.Helper()
	p, err := NewPlan(context.Background(), st, spec)
	if err != nil {
		b.Fatal(err)
	}
	js, err := NewJudges(spec.Config, 1, nil)
	if err != nil {
		b.Fatal(err)
	}
	return p, js
}
