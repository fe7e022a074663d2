package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/prism-eval/prism/model"
)

// parquetRows reads a Parquet file's rows, each as the JSON object of its
// columns (nested groups as objects, lists as arrays), calling fn with
// the row's 0-based index. The file is read by parquet-go; a panic in it
// on a corrupt file is reported as that file's error.
func parquetRows(name string, data []byte, fn func(i int, row []byte) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &ParseError{File: name, Msg: fmt.Sprintf("not a readable Parquet file (%v)", p)}
		}
	}()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return &ParseError{File: name, Msg: fmt.Sprintf("not a readable Parquet file: %v", err)}
	}
	r := parquet.NewReader(f)
	defer r.Close()
	buf := make([]parquet.Row, 64)
	for i := 0; ; {
		n, rerr := r.ReadRows(buf)
		for _, row := range buf[:n] {
			var v any
			if err := f.Schema().Reconstruct(&v, row); err != nil {
				return &ParseError{File: name, Msg: fmt.Sprintf("row %d: %v", i+1, err)}
			}
			js, err := json.Marshal(v)
			if err != nil {
				return &ParseError{File: name, Msg: fmt.Sprintf("row %d: %v", i+1, err)}
			}
			if err := fn(i, js); err != nil {
				return err
			}
			i++
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return &ParseError{File: name, Msg: fmt.Sprintf("row %d: %v", i+1, rerr)}
		}
	}
}

// eachParquetRecord reads a Parquet file's rows as mapped records; errors
// name the file, the 1-based row and the field.
func eachParquetRecord(name string, data []byte, add func(mappedRecord, string) error) error {
	return parquetRows(name, data, func(i int, js []byte) error {
		where := fmt.Sprintf("%s: row %d", name, i+1)
		loc := newLocator(where, js)
		n, err := parseJSON(loc, 0, len(js))
		if err != nil {
			return err
		}
		fail := func(_ *jnode, field, format string, args ...any) error {
			return &ParseError{File: where, Field: field, Msg: fmt.Sprintf(format, args...)}
		}
		return add(mappedRecord{node: n, loc: loc, fail: fail}, where)
	})
}

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
