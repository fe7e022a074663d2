package datasets

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/prism-eval/prism/model"
)

var helpSteer2Fixture = filepath.Join("testdata", "helpsteer2", "validation.jsonl")

// checkHelpSteer2 checks the fixture's dataset, however it was read.
func checkHelpSteer2(t *testing.T, d *model.Dataset) {
	t.Helper()
	if d.Format != FormatHelpSteer2 || d.Task != model.TaskAnswer || d.Metric != model.MetricPairwise || len(d.Contexts) != 6 || d.NumCandidates() != 12 {
		t.Fatalf("dataset %s %s %s: %d contexts, %d candidates", d.Format, d.Task, d.Metric, len(d.Contexts), d.NumCandidates())
	}
	if strings.Join(d.Criteria, ",") != "helpfulness,correctness,coherence,complexity,verbosity" {
		t.Errorf("criteria %v", d.Criteria)
	}
	c := d.Contexts[0]
	sum := sha256.Sum256([]byte("What is the capital of Australia?"))
	if c.ID != hex.EncodeToString(sum[:8]) || c.Source != "What is the capital of Australia?" {
		t.Errorf("context %q source %q", c.ID, c.Source)
	}
	k := c.Candidates[1]
	if k.ID != "r2" || !strings.HasPrefix(k.Text, "Sydney") || k.Human != 1 || k.Scores["correctness"] != 0 || k.Scores["verbosity"] != 2 {
		t.Errorf("candidate %+v", k)
	}
	if last := d.Contexts[5]; !strings.Contains(last.Source, "<extra_id_1>User\nNow in one sentence.") || last.Candidates[0].Human != last.Candidates[1].Human {
		t.Errorf("multi-turn context %+v", last)
	}
}

// The validation split as published: JSON Lines, gzipped as downloaded,
// and the Hub's Parquet conversion read alike.
func TestHelpSteer2(t *testing.T) {
	d, err := Load(FormatHelpSteer2, helpSteer2Fixture)
	if err != nil {
		t.Fatal(err)
	}
	checkHelpSteer2(t, d)
	if d.Name != "validation" {
		t.Errorf("name %q", d.Name)
	}
	plain, err := os.ReadFile(helpSteer2Fixture)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	if d, err = Read(FormatHelpSteer2, &gz, "validation.jsonl.gz"); err != nil {
		t.Fatal(err)
	}
	checkHelpSteer2(t, d)

	type row struct {
		Prompt      string `parquet:"prompt"`
		Response    string `parquet:"response"`
		Helpfulness int64  `parquet:"helpfulness"`
		Correctness int64  `parquet:"correctness"`
		Coherence   int64  `parquet:"coherence"`
		Complexity  int64  `parquet:"complexity"`
		Verbosity   int64  `parquet:"verbosity"`
	}
	var rows []row
	for _, c := range d.Contexts {
		for _, k := range c.Candidates {
			s := k.Scores
			rows = append(rows, row{c.Source, k.Text, int64(s["helpfulness"]), int64(s["correctness"]), int64(s["coherence"]), int64(s["complexity"]), int64(s["verbosity"])})
		}
	}
	var pq bytes.Buffer
	if err := parquet.Write(&pq, rows); err != nil {
		t.Fatal(err)
	}
	if d, err = Read(FormatHelpSteer2, &pq, "validation-00000-of-00001.parquet"); err != nil {
		t.Fatal(err)
	}
	checkHelpSteer2(t, d)
}

func TestHelpSteer2Errors(t *testing.T) {
	line := `{"prompt": "p", "response": "r", "helpfulness": 3, "correctness": 4, "coherence": 4, "complexity": 1, "verbosity": 2}`
	for _, tc := range []struct{ data, want string }{
		{line + "\n" + strings.Replace(line, `"helpfulness": 3`, `"helpfulness": 5`, 1), `hs.jsonl:2:49: helpfulness: "5" is outside the 0–4 scale`},
		{strings.Replace(line, `"verbosity": 2`, `"verbosity": "x"`, 1), `hs.jsonl:1:`},
		{strings.Replace(line, `, "coherence": 4`, ``, 1), `hs.jsonl:1:1: coherence: missing`},
		{strings.Replace(line, `"response": "r"`, `"response": 7`, 1), `hs.jsonl:1:29: response: want a string, got number`},
		{strings.Replace(line, `"prompt": "p"`, `"prompt": ""`, 1), `hs.jsonl:1:12: prompt: empty`},
		{strings.Replace(line, `"correctness": 4`, `"correctness": null`, 1), `correctness: missing (every attribute is rated 0–4)`},
		{"", "hs.jsonl: no records"},
		{"\x1f\x8bnot gzip", "hs.jsonl: gzip:"},
	} {
		_, err := Read(FormatHelpSteer2, strings.NewReader(tc.data), "hs.jsonl")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60q: error %v, want %q", tc.data, err, tc.want)
		}
	}
}

func FuzzReadHelpSteer2(f *testing.F) {
	fuzzParser(f, FormatHelpSteer2, seedFile(f, helpSteer2Fixture),
		`{"prompt": "p", "response": "r", "helpfulness": 3, "correctness": 4, "coherence": 4, "complexity": 1, "verbosity": 2}`)
}
