package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// Each parser is fuzzed for the same properties: it never panics; it
// returns either a dataset that passes Validate or a *ParseError (so every
// failure names the file, and where it can, the line and field), never
// both.

func fuzzParser(f *testing.F, format string, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Read(format, bytes.NewReader(data), "fuzz")
		if err != nil {
			if d != nil {
				t.Fatalf("dataset returned with error %v", err)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz" {
				t.Fatalf("error is not a ParseError naming the file: %v", err)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("parsed dataset fails Validate: %v", err)
		}
	})
}

func seedFile(f *testing.F, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return string(b)
}

func FuzzReadSummEval(f *testing.F) {
	fuzzParser(f, FormatSummEval, summEvalTiny, `{"d": {"src": "a", "sys_summs": {"M1": {"sys_summ": "s", "scores": {"coherence": 1e308, "consistency": 1e308, "fluency": 1e308, "relevance": 1e308}}}}}`, `{}`, `[`)
}

func FuzzReadSummEvalJSONL(f *testing.F) {
	fuzzParser(f, FormatSummEvalJSONL, seedFile(f, filepath.Join("testdata", "model_annotations.aligned.paired.jsonl")), "{\"id\": 1}\n\n",
		`{"id": "d", "model_id": "M1", "decoded": "s", "text": "a", "expert_annotations": [{"coherence": 1, "consistency": 2, "fluency": 3, "relevance": 4}], "turker_annotations": [{"coherence": 5}]}`)
}

func FuzzReadTopicalChat(f *testing.F) {
	fuzzParser(f, FormatTopicalChat, topicalChatTiny, `[{"source": "s", "system_id": "a", "system_output": "o", "scores": {"overall": 1}}]`)
}

func FuzzReadJudgeBench(f *testing.F) {
	fuzzParser(f, FormatJudgeBench, judgeBenchTiny, `{"pair_id": 5, "question": "", "response_A": "", "response_B": "", "label": "B>A"}`)
}

func FuzzReadHANNA(f *testing.F) {
	fuzzParser(f, FormatHANNA, seedFile(f, filepath.Join("testdata", "hanna_stories_annotations.csv")),
		hannaHeader+"0,P,H,S,M,1,2,3,4,5,6,w\n", ",Story ID,Prompt,Human,Story,Model,Relevance,Coherence,Empathy,Surprise,Engagement,Complexity\n0,5,P,H,S,GPT,1,2,3,4,5,5\n")
}

func FuzzReadJSONL(f *testing.F) {
	fuzzParser(f, FormatJSONL, genericJSONLTiny, string(demoJSONL[:bytes.IndexByte(demoJSONL, '\n')+1]))
}

func FuzzReadCSV(f *testing.F) {
	fuzzParser(f, FormatCSV, genericCSVTiny, "context,candidate,text,scores.a,scores.b\nc,a,t,1e308,1e308\n")
}

// FuzzParseJSON checks the located JSON tree against encoding/json: on
// valid input without duplicate keys, the tree holds the same values (with
// object keys in file order); on invalid input both reject it.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{summEvalTiny, topicalChatTiny, `{"a": "\u00e9\ud83d\ude00\\", "b": [1, -2.5e-3, true, null, {}]}`, "\"\xff\"", `[{"k": 1}, {"k": 1}]`, `{"a": 1, "a": 2}`, `  7 `, `{"a" 1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		loc := newLocator("fuzz", data)
		n, err := parseJSON(loc, 0, len(data))
		var want any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		werr := dec.Decode(&want)
		if werr == nil {
			// JSON white space only (not \f or \v, which isBlank allows).
			if _, terr := dec.Token(); terr != io.EOF {
				werr = errors.New("trailing data")
			}
		}
		if err != nil {
			if werr == nil && !strings.Contains(err.Error(), "duplicate key") {
				t.Fatalf("parseJSON rejected valid JSON: %v", err)
			}
			return
		}
		if werr != nil {
			t.Fatalf("parseJSON accepted invalid JSON (%v)", werr)
		}
		if got := treeValue(n); !reflect.DeepEqual(got, want) {
			t.Fatalf("tree %#v\nwant %#v", got, want)
		}
		if int(n.end) > len(data) || n.off < 0 || n.off > n.end {
			t.Fatalf("span [%d, %d) outside input of %d bytes", n.off, n.end, len(data))
		}
	})
}

// treeValue converts a tree to what encoding/json decodes with UseNumber.
func treeValue(n *jnode) any {
	switch n.kind {
	case jNull:
		return nil
	case jBool:
		return n.text == "true"
	case jNumber:
		return json.Number(n.text)
	case jString:
		return n.text
	case jArray:
		a := []any{}
		for _, it := range n.items {
			a = append(a, treeValue(it))
		}
		return a
	}
	m := map[string]any{}
	for i, k := range n.keys {
		m[k] = treeValue(n.vals[i])
	}
	return m
}

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
