// Command synthgen writes a synthetic study of any size for the scale
// measurements of docs/performance.md: a dataset in the generic JSONL
// layout (prism data import jsonl), and/or judge scores and human labels
// as CSV files (prism fit --scores --labels).
//
//	go run ./model/synthstudy/synthgen -contexts 1000 -candidates 16 -dataset synth.jsonl
//	go run ./model/synthstudy/synthgen -contexts 1000 -attributes 8 -scores s.csv -labels l.csv
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/synthstudy"
)

func main() {
	nctx := flag.Int("contexts", 1000, "contexts")
	ncand := flag.Int("candidates", 16, "candidates per context")
	attrs := flag.Int("attributes", 8, "attributes of the score rows")
	wordings := flag.Int("wordings", 1, "wordings per sign of the score rows")
	seed := flag.Uint64("seed", 1, "seed")
	dataset := flag.String("dataset", "", "write the dataset (JSONL) to `FILE`")
	scores := flag.String("scores", "", "write score rows (CSV) to `FILE`")
	labels := flag.String("labels", "", "write labels (CSV) to `FILE`; with -scores")
	flag.Parse()
	if *dataset == "" && *scores == "" {
		fmt.Fprintln(os.Stderr, "synthgen: give -dataset FILE and/or -scores FILE -labels FILE")
		os.Exit(2)
	}
	if *dataset != "" {
		write(*dataset, func(w io.Writer) error { return synthstudy.WriteJSONL(w, synthstudy.Dataset(*nctx, *ncand, *seed)) })
	}
	if *scores != "" {
		rows, labs := synthstudy.Scores(*nctx, *ncand, *attrs, *wordings, *seed)
		write(*scores, func(w io.Writer) error { return model.WriteScoresCSV(w, rows) })
		if *labels != "" {
			write(*labels, func(w io.Writer) error { return model.WriteLabelsCSV(w, labs) })
		}
	}
}

func write(path string, fn func(io.Writer) error) {
	if err := model.WriteFileAtomic(path, fn); err != nil {
		fmt.Fprintln(os.Stderr, "synthgen:", err)
		os.Exit(1)
	}
}
