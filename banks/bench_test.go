package banks

import (
	"testing"

	"github.com/prism-eval/prism/model"
)

var (
	sinkRequest Request
	sinkBank    *Bank
	sinkString  string
)

// BenchmarkRender: one single-candidate request of the story bank (the
// largest built-in), cycling through all its 78 conditions.
func BenchmarkRender(b *testing.B) {
	bank, _ := Builtin("story")
	ctx, _ := Sample(model.TaskStory)
	conds := bank.Conditions()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		req, err := bank.Render(model.TaskStory, ctx, ctx.Candidates[0], conds[i%len(conds)])
		if err != nil {
			b.Fatal(err)
		}
		sinkRequest = req
	}
}

// BenchmarkRenderBatch: one batched request of 16 candidates (a SummEval
// document) under the quality bank.
func BenchmarkRenderBatch(b *testing.B) {
	bank, _ := Builtin("quality")
	ctx, _ := Sample(model.TaskNewsSummary)
	cands := make([]model.Candidate, 16)
	for i := range cands {
		cands[i] = ctx.Candidates[i%2]
		cands[i].ID = string(rune('a' + i))
	}
	b.ReportAllocs()
	for b.Loop() {
		req, err := bank.RenderBatch(model.TaskNewsSummary, ctx, cands, Baseline)
		if err != nil {
			b.Fatal(err)
		}
		sinkRequest = req
	}
}

func BenchmarkHash(b *testing.B) {
	bank, _ := Builtin("story")
	b.ReportAllocs()
	for b.Loop() {
		sinkString = bank.Hash()
	}
}

func BenchmarkParse(b *testing.B) {
	data, _ := BuiltinFile("story")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		bank, err := Parse(data, "story.toml")
		if err != nil {
			b.Fatal(err)
		}
		sinkBank = bank
	}
}

// BenchmarkRendererRender: as BenchmarkRender through a Renderer, which
// computes the bank hash once.
func BenchmarkRendererRender(b *testing.B) {
	bank, _ := Builtin("story")
	r, _ := bank.Renderer(model.TaskStory)
	ctx, _ := Sample(model.TaskStory)
	conds := bank.Conditions()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		req, err := r.Render(ctx, ctx.Candidates[0], conds[i%len(conds)])
		if err != nil {
			b.Fatal(err)
		}
		sinkRequest = req
	}
}
