package datasets

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"math"
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

// Hand-counted on testdata/mt_bench_human_judgments.jsonl: on 81/1
// gpt-4 won 2 and tied 1 of 3, alpaca-13b lost both of its 2, vicuna won
// 1, tied 1 and lost 1; on 81/2 gpt-4 won 1 and tied 1, alpaca-13b lost
// 1 and tied 1.
func TestMTBenchHumanJudgments(t *testing.T) {
	d, err := Load(FormatMTBench, filepath.Join("testdata", "mt_bench_human_judgments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Metric != "pairwise" || len(d.Contexts) != 2 || d.Contexts[0].ID != "81/1" || d.Contexts[1].ID != "81/2" {
		t.Fatalf("dataset %s %d contexts", d.Metric, len(d.Contexts))
	}
	want := map[string]float64{"81/1 gpt-4": 2.5 / 3, "81/1 alpaca-13b": 0, "81/1 vicuna-13b-v1.2": 0.5, "81/2 gpt-4": 0.75, "81/2 alpaca-13b": 0.25}
	var ids []string
	for _, c := range d.Contexts {
		for _, k := range c.Candidates {
			ids = append(ids, c.ID+" "+k.ID)
			if w, ok := want[c.ID+" "+k.ID]; !ok || math.Abs(k.Human-w) > 1e-12 {
				t.Errorf("%s %s: win rate %v, want %v", c.ID, k.ID, k.Human, w)
			}
		}
	}
	if len(ids) != 5 {
		t.Errorf("candidates %v", ids)
	}
	c2 := d.Contexts[1]
	if !strings.HasPrefix(c2.Source, "Turn 1: Compose") || !strings.Contains(c2.Source, "\n\nTurn 2: Rewrite") || c2.Candidates[0].Text != "A trip to Hawaii ..." {
		t.Errorf("81/2 source %q text %q", c2.Source, c2.Candidates[0].Text)
	}
	if got := d.Contexts[0].Extra["comparisons"]; got != `[{"winner":"gpt-4","loser":"alpaca-13b","judge":"author_0"},{"winner":"vicuna-13b-v1.2","loser":"alpaca-13b","judge":"author_0"},{"winner":"gpt-4","loser":"vicuna-13b-v1.2","judge":"author_2"}]` {
		t.Errorf("81/1 comparisons %s", got)
	}
	if k := d.Contexts[0].Candidates[2]; k.Extra["comparisons"] != "3" || k.Extra["wins"] != "1" || k.Extra["ties"] != "1" {
		t.Errorf("vicuna extra %v", k.Extra)
	}
}

type mtMsg struct {
	Content string `parquet:"content"`
	Role    string `parquet:"role"`
}

type mtRow struct {
	QuestionID int64   `parquet:"question_id"`
	ModelA     string  `parquet:"model_a"`
	ModelB     string  `parquet:"model_b"`
	Winner     string  `parquet:"winner"`
	Judge      string  `parquet:"judge"`
	ConvA      []mtMsg `parquet:"conversation_a,list"`
	ConvB      []mtMsg `parquet:"conversation_b,list"`
	Turn       int64   `parquet:"turn"`
}

// The Hub's Parquet file reads as the JSON Lines one.
func TestMTBenchParquet(t *testing.T) {
	conv := []mtMsg{{"q1", "user"}, {"a1", "assistant"}, {"q2", "user"}, {"a2", "assistant"}}
	var buf bytes.Buffer
	rows := []mtRow{{81, "gpt-4", "llama-13b", "model_a", "author_0", conv, conv, 2}, {81, "llama-13b", "gpt-4", "tie", "author_1", conv, conv, 2}}
	if err := parquet.Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	d, err := Read(FormatMTBench, &buf, "human.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if c := d.Contexts[0]; c.ID != "81/2" || c.Candidates[0].Human != 0.75 || c.Candidates[1].Human != 0.25 || c.Candidates[0].Text != "a2" || c.Source != "Turn 1: q1\n\nTurn 2: q2" {
		t.Errorf("parquet: %+v", c)
	}
}

func TestMTBenchErrors(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "mt_bench_human_judgments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	line := strings.SplitN(string(good), "\n", 2)[0]
	for _, tc := range []struct{ data, want string }{
		{strings.Replace(line, `"winner": "model_a"`, `"winner": "a"`, 1), `mt.jsonl:1:`},
		{strings.Replace(line, `"turn": 1`, `"turn": 3`, 1), `turn: want 1 or 2, got "3"`},
		{strings.Replace(line, `"model_b": "alpaca-13b"`, `"model_b": "gpt-4"`, 1), `model_b: the same model as model_a`},
		{strings.Replace(line, `"conversation_a": [`, `"conversation_x": [`, 1), `conversation_a: missing or not a list of messages`},
		{`{"question_id": 1}`, `mt.jsonl:1:1: turn: missing`},
		{"", "mt.jsonl: no judgments"},
	} {
		_, err := Read(FormatMTBench, strings.NewReader(tc.data), "mt.jsonl")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.50s: error %v, want %q", tc.data, err, tc.want)
		}
	}
}

func FuzzReadMTBench(f *testing.F) {
	good, err := os.ReadFile(filepath.Join("testdata", "mt_bench_human_judgments.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	fuzzParser(f, FormatMTBench, string(good), `{"question_id": 1, "turn": 1, "model_a": "x", "model_b": "y", "winner": "tie", "conversation_a": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}], "conversation_b": []}`)
}
