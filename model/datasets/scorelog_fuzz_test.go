package datasets

import (
	"bytes"

	"github.com/parquet-go/parquet-go"
	"os"
	"strings"
	"testing"
)

// The score log readers are fuzzed for the properties of the dataset
// parsers: no panic; either a log with rows on a dataset that holds each
// row's candidate, or an error naming the file, never both.
func fuzzLog(f *testing.F, format string, opts LogOptions, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ReadScoreLog(format, data, "fuzz", opts)
		if err != nil {
			if l != nil {
				t.Fatalf("log returned with error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "fuzz") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(l.Rows) == 0 {
			t.Fatal("a log without rows")
		}
		for _, r := range l.Rows {
			if _, k := l.Dataset.Find(r.Context, r.Candidate); k == nil {
				t.Fatalf("row %s/%s not in the dataset", r.Context, r.Candidate)
			}
		}
	})
}

func seedBytes(f *testing.F, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func FuzzReadInspectJSON(f *testing.F) {
	fuzzLog(f, LogInspect, LogOptions{}, seedBytes(f, inspectFile("log_formats.json")),
		inspectJSON(`{"id": 1, "epoch": 2, "target": ["3"], "input": [{"role": "user", "content": [{"type": "text", "text": "q"}]}], "scores": {"s": {"value": "P"}}}`))
}

func FuzzReadInspectEval(f *testing.F) {
	fuzzLog(f, LogInspect, LogOptions{}, seedBytes(f, inspectFile("log_formats.eval")))
}

func FuzzReadPromptfoo(f *testing.F) {
	fuzzLog(f, LogPromptfoo, LogOptions{Context: "doc", Label: "human"}, seedBytes(f, pfFile("outputs_v2.json")),
		[]byte(`{"results": {"results": [{"provider": {"id": "p"}, "vars": {"doc": 1, "human": "2"}, "namedScores": {"q": 1}, "score": 0.5}]}}`))
}

var mappedFuzzOpts = LogOptions{Context: "c,t", Candidate: "k", Score: "s.0", Run: "r", Label: "h"}

func FuzzReadMappedJSONL(f *testing.F) {
	fuzzLog(f, LogJSONL, mappedFuzzOpts, seedBytes(f, mappedFile("gpt-4_single.jsonl")),
		[]byte(`{"c": 1, "t": "x", "k": "a", "s": [2], "r": 1, "h": "3"}`+"\n"))
}

func FuzzReadMappedJSON(f *testing.F) {
	fuzzLog(f, LogJSON, mappedFuzzOpts, seedBytes(f, mappedFile("annotations.json")),
		[]byte(`{"data": [{"c": 1, "t": "x", "k": "a", "s": [2], "r": 1, "h": null}]}`))
}

func FuzzReadMappedCSV(f *testing.F) {
	fuzzLog(f, LogCSV, LogOptions{Context: "c,t", Candidate: "k", Score: "s.0", Run: "r", Label: "h"},
		[]byte("c,t,k,s.0,r,h\n1,x,a,2,1,3\n1,x,a,,2,3\n"), []byte("\ufeffc,t\n\"a\nb\",\"\"\n"))
}

func FuzzReadMappedParquet(f *testing.F) {
	type row struct {
		C string    `parquet:"c"`
		T int64     `parquet:"t"`
		K string    `parquet:"k"`
		S []float64 `parquet:"s,list"`
		R string    `parquet:"r"`
		H *float64  `parquet:"h,optional"`
	}
	var buf bytes.Buffer
	h := 3.0
	if err := parquet.Write(&buf, []row{{"x", 1, "a", []float64{2}, "1", &h}, {"x", 1, "b", []float64{}, "1", nil}}); err != nil {
		f.Fatal(err)
	}
	fuzzLog(f, LogParquet, mappedFuzzOpts, buf.Bytes())
}

// ReadMappedDataset: a dataset that passes Validate, or an error naming
// the file.
func fuzzMappedDataset(f *testing.F, format string, m DatasetMapping, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadMappedDataset(format, "fuzz", data, m)
		if err != nil {
			if d != nil || !strings.HasPrefix(err.Error(), "fuzz") {
				t.Fatalf("error %v (dataset %v)", err, d != nil)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzReadMappedDatasetJSONL(f *testing.F) {
	fuzzMappedDataset(f, LogJSONL, DatasetMapping{Context: "q", Candidate: "#", Text: "r", Source: "q", Criteria: []string{"s.c", "s.d"}},
		[]byte(`{"q": "a", "r": "x", "s": {"c": 1, "d": 3}}`+"\n"+`{"q": "a", "r": "y", "s": {"c": 2, "d": 2}}`+"\n"))
}

func FuzzReadMappedDatasetParquet(f *testing.F) {
	type row struct {
		Prompt   string `parquet:"prompt"`
		Response string `parquet:"response"`
		Help     int64  `parquet:"helpfulness"`
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, []row{{"p", "a", 3}, {"p", "b", 1}}); err != nil {
		f.Fatal(err)
	}
	fuzzMappedDataset(f, LogParquet, DatasetMapping{Context: "prompt", Candidate: "#", Text: "response", Human: "helpfulness"}, buf.Bytes())
}
