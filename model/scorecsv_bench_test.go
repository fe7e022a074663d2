package model_test

import (
	"bytes"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/synthstudy"
)

var sinkRows []model.ScoreRow

// scoreFile is a score file of synthgen's default shape at nctx contexts:
// 16 candidates × (baseline + 8 attributes × 2 signs), 272 rows a context.
func scoreFile(b *testing.B, nctx int) []byte {
	b.Helper()
	rows, _ := synthstudy.Scores(nctx, 16, 8, 1, 1)
	var buf bytes.Buffer
	if err := model.WriteScoresCSV(&buf, rows); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkReadScoresCSV1k reads 272,000 score rows (1,000 contexts).
func BenchmarkReadScoresCSV1k(b *testing.B) { benchReadScores(b, 1000) }

// BenchmarkReadScoresCSV5k reads 1,360,000 score rows (5,000 contexts).
func BenchmarkReadScoresCSV5k(b *testing.B) { benchReadScores(b, 5000) }

func benchReadScores(b *testing.B, nctx int) {
	data := scoreFile(b, nctx)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rows, err := model.ReadScoresCSV(bytes.NewReader(data), "s.csv")
		if err != nil {
			b.Fatal(err)
		}
		sinkRows = rows
	}
}
