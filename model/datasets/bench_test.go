package datasets

import (
	"bytes"
	"os"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/shareddata"
)

var benchSink *model.Dataset

// BenchmarkLoadSummEval parses the real SummEval data.json (1.4 MB, 100 ×
// 16) from memory: the import cost without disk I/O or the store write.
func BenchmarkLoadSummEval(b *testing.B) {
	data, err := os.ReadFile(shareddata.Path(b, "summeval/data.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := Read(FormatSummEval, bytes.NewReader(data), "data.json")
		if err != nil {
			b.Fatal(err)
		}
		benchSink = d
	}
}

// BenchmarkLoadJudgeBench parses the gpt-4o JudgeBench file (1.96 MB, 350
// pairs, one JSON document per line).
func BenchmarkLoadJudgeBench(b *testing.B) {
	path := shareddata.Path(b, "judgebench/dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := Read(FormatJudgeBench, bytes.NewReader(data), "jb.jsonl")
		if err != nil {
			b.Fatal(err)
		}
		benchSink = d
	}
}
