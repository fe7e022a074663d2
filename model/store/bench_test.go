package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/shareddata"
	"github.com/prism-eval/prism/model/synthstudy"
)

// sink keeps benchmark results alive so the compiler cannot drop the work.
var sink any

// BenchmarkImportSummEval loads SummEval's data.json and stores it in a
// fresh workspace: what `prism data import summeval` does.
func BenchmarkImportSummEval(b *testing.B) {
	path := shareddata.Path(b, "summeval/data.json")
	ctx := context.Background()
	dir := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := datasets.Load("summeval", path)
		if err != nil {
			b.Fatal(err)
		}
		s, err := Open(ctx, filepath.Join(dir, fmt.Sprintf("s%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		if err := s.PutDataset(ctx, d, false); err != nil {
			b.Fatal(err)
		}
		sink = d
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPutDatasetSummEval is the store's share of the import: SummEval
// already loaded, written to a fresh workspace in one transaction.
func BenchmarkPutDatasetSummEval(b *testing.B) {
	path := shareddata.Path(b, "summeval/data.json")
	d, err := datasets.Load("summeval", path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	dir := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := Open(ctx, filepath.Join(dir, fmt.Sprintf("p%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := s.PutDataset(ctx, d, false); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	sink = d
}

// summEvalShape is a dataset with SummEval's shape (100 contexts x 16
// candidates) so the response benchmark runs without the shared data.
func summEvalShape() *model.Dataset {
	d := &model.Dataset{Name: "summeval", Format: "summeval", Task: model.TaskNewsSummary, Metric: model.MetricSpearman}
	for c := 0; c < 100; c++ {
		ctx := model.Context{ID: "article-" + strconv.Itoa(c), Source: "An article."}
		for k := 0; k < 16; k++ {
			ctx.Candidates = append(ctx.Candidates, model.Candidate{ID: "M" + strconv.Itoa(k), Text: "A summary.", Human: float64(k % 5)})
		}
		d.Contexts = append(d.Contexts, ctx)
	}
	return d
}

// conditions38 are the probe conditions of the paper's quality bank:
// baseline, 8 attributes x 2 signs x 2 wordings, 5 neutral clauses.
func conditions38() (probes, wordings []string) {
	probes, wordings = append(probes, "baseline"), append(wordings, "0")
	for a := 0; a < 8; a++ {
		for _, sign := range []string{"+", "-"} {
			for w := 0; w < 2; w++ {
				probes = append(probes, fmt.Sprintf("attr%d:%s", a, sign))
				wordings = append(wordings, strconv.Itoa(w))
			}
		}
	}
	for n := 0; n < 5; n++ {
		probes, wordings = append(probes, fmt.Sprintf("neutral:n%d", n)), append(wordings, "0")
	}
	return probes, wordings
}

// responses60k is one response per SummEval-shaped candidate and
// condition, 1,600 × 38 = 60,800 of them, as a run of the quality bank
// would store.
func responses60k(b *testing.B) []Response {
	b.Helper()
	d := summEvalShape()
	probes, wordings := conditions38()
	var rs []Response
	for _, c := range d.Contexts {
		for _, k := range c.Candidates {
			for p := range probes {
				key, err := RequestKey("openai", "gpt-x", map[string]any{"temperature": 0},
					[]Message{{"system", probes[p] + wordings[p]}, {"user", c.ID + "/" + k.ID}})
				if err != nil {
					b.Fatal(err)
				}
				rs = append(rs, Response{
					Request: Request{Key: key, Judge: "j", Dataset: d.Name, Context: c.ID, Candidate: k.ID,
						BankHash: "bank", Probe: probes[p], Wording: wordings[p], Run: "0"},
					Raw: `{"score": 4}`, Score: 4, PromptTokens: 900, CompletionTokens: 8, Latency: 1e9,
				})
			}
		}
	}
	if len(rs) != 60800 {
		b.Fatalf("%d responses, want 60,800", len(rs))
	}
	return rs
}

// BenchmarkPutResponses60k stores one response per SummEval candidate and
// condition, 1,600 x 38 = 60,800, with PutResponses' batched transactions
// into a fresh workspace. Building the responses and the workspace is not
// timed.
func BenchmarkPutResponses60k(b *testing.B) {
	ctx := context.Background()
	d := summEvalShape()
	rs := responses60k(b)
	dir := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := Open(ctx, filepath.Join(dir, fmt.Sprintf("r%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		if err := s.PutDataset(ctx, d, false); err != nil {
			b.Fatal(err)
		}
		if _, err := s.PutJudge(ctx, Judge{Name: "j", Backend: "openai", Model: "gpt-x"}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := s.PutResponses(ctx, rs); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	sink = rs
}

// BenchmarkResponseWriter stores the responses of BenchmarkPutResponses60k
// through one ResponseWriter in batches of the size the judge engine's
// group commit makes (about 1, 3 and 14 answers per commit at concurrency
// 8, 32 and 128 against a 20 ms server, docs/performance.md) and of the
// folds of a server judge's answer journal (512), into a fresh
// workspace: the engine's writer without the engine. It reports the
// writer's time per answer.
func BenchmarkResponseWriter(b *testing.B) {
	ctx := context.Background()
	rs := responses60k(b)
	for _, batch := range []int{1, 3, 14, 512} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			dir := b.TempDir()
			b.ReportAllocs()
			n := 0
			var cpu time.Duration
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				s, err := Open(ctx, filepath.Join(dir, fmt.Sprintf("r%d.db", i)))
				if err != nil {
					b.Fatal(err)
				}
				if err := s.PutDataset(ctx, summEvalShape(), false); err != nil {
					b.Fatal(err)
				}
				if _, err := s.PutJudge(ctx, Judge{Name: "j", Backend: "openai", Model: "gpt-x"}); err != nil {
					b.Fatal(err)
				}
				w, err := s.NewResponseWriter(ctx)
				if err != nil {
					b.Fatal(err)
				}
				// A third of the study, as the engine benchmark's 19,456.
				part := rs[:len(rs)/3]
				c0 := processCPU()
				b.StartTimer()
				for lo := 0; lo < len(part); lo += batch {
					if err := w.Put(ctx, part[lo:min(lo+batch, len(part))]); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				cpu += processCPU() - c0
				n += len(part)
				w.Close()
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n)/1e3, "µs/answer")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(n)/1e3, "µs-cpu/answer")
		})
	}
}

// processCPU is this process's user + system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDatasetSummEval reads SummEval back from a workspace: what
// every command that renders, exports or fits a study does first.
func BenchmarkDatasetSummEval(b *testing.B) {
	path := shareddata.Path(b, "summeval/data.json")
	d, err := datasets.Load("summeval", path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "d.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.PutDataset(ctx, d, false); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if sink, err = s.Dataset(ctx, d.Name); err != nil {
			b.Fatal(err)
		}
	}
}

// studyWorkspace1k is a workspace holding the answers of a judge to a
// quality-bank study of 1,000 contexts × 16 candidates (608,000 answers:
// baseline, 8 attributes × 2 signs × 2 wordings, 5 neutral clauses), the
// size of docs/performance.md's "Reading a study" rows. Building it takes
// a while; PRISM_BENCH_WORKSPACE names an existing copy to read instead
// (dataset synth, judge j).
func studyWorkspace1k(b *testing.B) *Store {
	b.Helper()
	ctx := context.Background()
	if p := os.Getenv("PRISM_BENCH_WORKSPACE"); p != "" {
		s, err := OpenReadOnly(ctx, p)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	s, err := Open(ctx, filepath.Join(b.TempDir(), "study.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	fillStudy(b, s, 1000)
	return s
}

// fillStudy stores in s the answers of judge j (offline) to a
// quality-bank study of contexts × 16 candidates × 38 conditions on
// dataset synth (bank hash "bank"), with its score snapshot.
func fillStudy(b *testing.B, s *Store, contexts int) {
	b.Helper()
	ctx := context.Background()
	d := synthstudy.Dataset(contexts, 16, 1)
	if err := s.PutDataset(ctx, d, false); err != nil {
		b.Fatal(err)
	}
	if _, err := s.PutJudge(ctx, Judge{Name: "j", Backend: "offline", Model: "sim"}); err != nil {
		b.Fatal(err)
	}
	probes, wordings := conditions38()
	keyer, err := NewKeyer("offline", "sim", nil)
	if err != nil {
		b.Fatal(err)
	}
	var rs []Response
	for _, c := range d.Contexts {
		for i, k := range c.Candidates {
			for p := range probes {
				score := float64((i + 3*p) % 10)
				rs = append(rs, Response{
					Request: Request{Key: keyer.Key([]Message{{"system", probes[p] + wordings[p]}, {"user", c.ID + "/" + k.ID}}),
						Judge: "j", Dataset: d.Name, Context: c.ID, Candidate: k.ID,
						BankHash: "bank", Probe: probes[p], Wording: wordings[p], Run: "0"},
					Raw: fmt.Sprintf(`{"score": %g}`, score), Score: score,
				})
			}
		}
		if len(rs) >= 60800 {
			if err := s.PutResponses(ctx, rs); err != nil {
				b.Fatal(err)
			}
			rs = rs[:0]
		}
	}
	if err := s.PutResponses(ctx, rs); err != nil {
		b.Fatal(err)
	}
	if err := s.SnapshotScores(ctx, d.Name, "j", "bank"); err != nil { // as a run's end does
		b.Fatal(err)
	}
}

// BenchmarkScores1k reads the 608,000 answers of studyWorkspace1k as
// score rows, in Scores' order: what prism fit --workspace reads. A
// workspace of schema 5 reads the study's score snapshot.
func BenchmarkScores1k(b *testing.B) { benchScores1k(b, true) }

// BenchmarkScores1kScan is BenchmarkScores1k reading the request rows, as
// Scores does when a study has no current snapshot.
func BenchmarkScores1kScan(b *testing.B) { benchScores1k(b, false) }

func benchScores1k(b *testing.B, snapshots bool) {
	readSnapshots = snapshots
	defer func() { readSnapshots = true }()
	s := studyWorkspace1k(b)
	ctx := context.Background()
	dataset, judge := "synth", "j"
	if os.Getenv("PRISM_BENCH_WORKSPACE") != "" {
		dataset, judge = os.Getenv("PRISM_BENCH_DATASET"), os.Getenv("PRISM_BENCH_JUDGE")
	}
	b.ReportAllocs()
	for b.Loop() {
		rows, err := s.Scores(ctx, dataset, judge, "")
		if err != nil {
			b.Fatal(err)
		}
		if len(rows) == 0 {
			b.Fatal("no rows")
		}
		sink = rows
	}
}

// BenchmarkSnapshotScores1k writes the score snapshot of the 608,000
// answers of studyWorkspace1k: what a run's end costs (Lease.Release).
func BenchmarkSnapshotScores1k(b *testing.B) {
	if os.Getenv("PRISM_BENCH_WORKSPACE") != "" {
		b.Skip("writes: needs the built workspace")
	}
	s := studyWorkspace1k(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.w.Exec(`UPDATE studies SET generation = generation + 1`); err != nil { // make it stale
			b.Fatal(err)
		}
		if err := s.SnapshotScores(ctx, "synth", "j", "bank"); err != nil {
			b.Fatal(err)
		}
	}
}
