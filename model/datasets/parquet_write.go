package datasets

import (
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/prism-eval/prism/model"
)

// scoreParquet is a tidy score row in Parquet: the columns of the score
// CSV, a missing score null.
type scoreParquet struct {
	Context   string   `parquet:"context"`
	Candidate string   `parquet:"candidate"`
	Probe     string   `parquet:"probe"`
	Score     *float64 `parquet:"score,optional"`
	Run       string   `parquet:"run"`
	Wording   string   `parquet:"wording"`
}

type labelParquet struct {
	Context   string  `parquet:"context"`
	Candidate string  `parquet:"candidate"`
	Human     float64 `parquet:"human"`
}

// WriteScoresParquet writes score rows as a Parquet file with the score
// CSV's columns (context, candidate, probe, score, run, wording), for
// pandas and polars: pandas.read_parquet(FILE).
func WriteScoresParquet(w io.Writer, rows []model.ScoreRow) error {
	out := make([]scoreParquet, len(rows))
	for i, r := range rows {
		out[i] = scoreParquet{Context: r.Context, Candidate: r.Candidate, Probe: r.Probe, Run: r.Run, Wording: r.Wording}
		if !r.Missing {
			v := r.Score
			out[i].Score = &v
		}
	}
	return parquet.Write(w, out)
}

// WriteLabelsParquet writes labels as a Parquet file (context, candidate,
// human).
func WriteLabelsParquet(w io.Writer, labels []model.Label) error {
	out := make([]labelParquet, len(labels))
	for i, l := range labels {
		out[i] = labelParquet{l.Context, l.Candidate, l.Human}
	}
	return parquet.Write(w, out)
}
