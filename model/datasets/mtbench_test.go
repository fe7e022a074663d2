package datasets

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

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
