package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/openai/openaitest"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

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
