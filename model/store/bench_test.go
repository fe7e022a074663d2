package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/shareddata"
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

// BenchmarkPutResponses60k stores one response per SummEval candidate and
// condition, 1,600 x 38 = 60,800, with PutResponses' batched transactions
// into a fresh workspace. Building the responses and the workspace is not
// timed.
func BenchmarkPutResponses60k(b *testing.B) {
	ctx := context.Background()
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
