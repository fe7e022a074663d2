package datasets

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func mappedFile(name string) string { return filepath.Join("testdata", "mapped", name) }

// The recipes of docs/import.md, on files in the published layouts.
func TestMappedRecipes(t *testing.T) {
	// MT-Bench single-answer judgments: context = question × turn.
	l := loadLogs(t, LogJSONL, LogOptions{Context: "question_id,turn", Candidate: "model", Score: "score"}, mappedFile("gpt-4_single.jsonl"))
	if got, want := rowText(l.Rows), "81/1/alpaca-13b/=4\n81/1/gpt-4/=9\n81/2/alpaca-13b/=2\n81/2/gpt-4/=8\n82/1/alpaca-13b/=6\n"; got != want {
		t.Errorf("MT-Bench rows\n%swant\n%s", got, want)
	}
	// JudgeBench reward model: one import per response, the candidate
	// named by a literal.
	a := loadLogs(t, LogJSONL, LogOptions{Context: "pair_id", Candidate: "=A", Score: "judgments[0].judgment.scores[0]"}, mappedFile("judgebench_reward_model.jsonl"))
	b := loadLogs(t, LogJSONL, LogOptions{Context: "pair_id", Candidate: "=B", Score: "judgments.0.judgment.scores.1"}, mappedFile("judgebench_reward_model.jsonl"))
	if got := rowText(a.Rows) + rowText(b.Rows); got != "p1/A/=12.5\np2/A/=1.5\np1/B/=-3.25\np2/B/=7\n" {
		t.Errorf("JudgeBench rows\n%s", got)
	}
	// AlpacaEval annotations: a null preference is missing.
	l = loadLogs(t, LogJSON, LogOptions{Context: "instruction", Candidate: "generator_2", Score: "preference"}, mappedFile("annotations.json"))
	if len(l.Rows) != 3 || l.Rows[1].Score != 1.9003 || !l.Rows[2].Missing || l.Rows[0].Candidate != "alpaca-7b" {
		t.Errorf("AlpacaEval rows\n%s", rowText(l.Rows))
	}
}

func TestMappedCSVAndParquet(t *testing.T) {
	csv := "item,sys,judge score,rep,gold\nq1,a,3,1,4\nq1,a,4,2,4\nq1,b,,1,2\n"
	opts := LogOptions{Context: "item", Candidate: "sys", Score: "judge score", Run: "rep", Label: "gold"}
	want := "q1/a/1=3\nq1/a/2=4\nq1/b/1=NA\n"
	l, err := ReadScoreLog(LogCSV, []byte(csv), "s.csv", opts)
	if err != nil || rowText(l.Rows) != want || l.Dataset.Contexts[0].Candidates[1].Human != 2 {
		t.Fatalf("csv: %v\n%v", err, l)
	}
	type row struct {
		Item  string   `parquet:"item"`
		Sys   string   `parquet:"sys"`
		Score *float64 `parquet:"judge score,optional"`
		Rep   int64    `parquet:"rep"`
		Gold  float64  `parquet:"gold"`
	}
	f := func(v float64) *float64 { return &v }
	var buf bytes.Buffer
	if err := parquet.Write(&buf, []row{{"q1", "a", f(3), 1, 4}, {"q1", "a", f(4), 2, 4}, {"q1", "b", nil, 1, 2}}); err != nil {
		t.Fatal(err)
	}
	l, err = ReadScoreLog(LogParquet, buf.Bytes(), "s.parquet", opts)
	if err != nil || rowText(l.Rows) != want {
		t.Fatalf("parquet: %v\n%v", err, l)
	}
	_, err = ReadScoreLog(LogParquet, buf.Bytes(), "s.parquet", LogOptions{Context: "item", Candidate: "sys", Score: "nope"})
	if err == nil || err.Error() != "s.parquet: row 1: nope: missing (the score path)" {
		t.Errorf("parquet error: %v", err)
	}
}

func TestMappedErrors(t *testing.T) {
	jl := `{"c": "x", "k": "a", "s": 1}` + "\n" + `{"c": "x", "k": "b", "s": "high"}` + "\n"
	base := LogOptions{Context: "c", Candidate: "k", Score: "s"}
	for _, tc := range []struct {
		format, data string
		opts         LogOptions
		want         string
	}{
		{LogJSONL, jl, base, `m:2:27: s: score "high" is not a finite number`},
		{LogJSONL, jl, LogOptions{Context: "c", Candidate: "q", Score: "s"}, "m:1:1: q: missing (--candidate q)"},
		{LogJSONL, `{"c": {"a": 1}, "k": "a", "s": 1}`, base, "m:1:7: c: want a string or number for --context, got object"},
		{LogJSONL, `{"c": "x", "k": "a", "s": 1}` + "\n\n" + `{"c": "x", "k": "a", "s": 2}`, base, "m:3: context \"x\" candidate \"a\" run \"\" was already scored at m:1"},
		{LogJSON, `{"rows": []}`, base, "m:1:1: want an array of records"},
		{LogJSON, `[{"c": "x", "k": "a", "s": [1]}]`, base, "m:1:28: 0.s: want a number for the score, got array"},
		{LogCSV, "c,k,s\nx,a,1e999\n", base, "m:2:5: s: score \"1e999\" is not a finite number"},
		{LogCSV, "c,k,s\nx,a\n", base, "m:2:1: wrong number of fields"},
		{LogCSV, "", base, "m: empty file"},
		{LogParquet, "PAR1junk", base, "m: not a readable Parquet file"},
		{LogJSONL, jl, LogOptions{Context: "c"}, "needs --context, --candidate and --score"},
	} {
		_, err := ReadScoreLog(tc.format, []byte(tc.data), "m", tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %.40q: error %v, want %q", tc.format, tc.data, err, tc.want)
		}
	}
}
