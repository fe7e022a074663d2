package datasets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

const summEvalTiny = `{
  "d1": {
    "src": "Article one .",
    "ref_summs": ["Ref A .", "Ref B ."],
    "sys_summs": {
      "M2": {"sys_summ": "Sum two .", "scores": {"coherence": 2.0, "consistency": 5.0, "fluency": 4.0, "relevance": 3.0}},
      "M1": {"sys_summ": "Sum one .", "scores": {"coherence": 1.3333333333333333, "consistency": 1.0, "fluency": 3.0, "relevance": 1.6666666666666667}}
    },
    "ref_summ": "Ref A ."
  },
  "d0": {
    "src": "Article zero .",
    "sys_summs": {
      "M1": {"sys_summ": "Zero .", "scores": {"coherence": 5, "consistency": 5, "fluency": 5, "relevance": 5}}
    }
  }
}`

func TestReadSummEval(t *testing.T) {
	d := readString(t, FormatSummEval, "dir/tiny.json", summEvalTiny)
	if d.Name != "tiny" || d.Format != FormatSummEval {
		t.Errorf("name %q format %q", d.Name, d.Format)
	}
	// Documents and systems stay in file order, not sorted.
	if d.Contexts[0].ID != "d1" || d.Contexts[1].ID != "d0" || d.Contexts[0].Candidates[0].ID != "M2" {
		t.Fatalf("order: %s %s %s", d.Contexts[0].ID, d.Contexts[1].ID, d.Contexts[0].Candidates[0].ID)
	}
	// Targets by hand: M2 (2+5+4+3)/4 = 3.5; M1 (4/3+1+3+5/3)/4 = 7/4.
	for _, tc := range []struct {
		ctx, id string
		want    float64
	}{{"d1", "M2", 3.5}, {"d1", "M1", 1.75}, {"d0", "M1", 5}} {
		if got := candidate(t, d, tc.ctx, tc.id).Human; !near(got, tc.want) {
			t.Errorf("%s/%s target %v, want %v", tc.ctx, tc.id, got, tc.want)
		}
	}
	c := d.Contexts[0]
	if c.Source != "Article one ." || c.Extra["reference"] != "Ref A ." || c.Extra["references"] != `["Ref A .","Ref B ."]` {
		t.Errorf("context fields %q %v", c.Source, c.Extra)
	}
	if d.Contexts[1].Extra != nil {
		t.Errorf("d0 has no references, got Extra %v", d.Contexts[1].Extra)
	}
}

func TestReadSummEvalErrors(t *testing.T) {
	checkErrors(t, FormatSummEval, "data.json", []errorCase{
		{"not object", `[1]`, "data.json:1:1: want an object of documents"},
		{"syntax", "{\n\"d\": {\n\"src\": \"x\",,\n}}", "data.json:3:"},
		{"score string", "{\"d\": {\"src\": \"a\", \"sys_summs\": {\"M11\": {\"sys_summ\": \"s\",\n \"scores\": {\"coherence\": \"high\"}}}}}",
			"data.json:2:26: d.sys_summs.M11.scores.coherence: not a number (got string)"},
		{"missing criterion", `{"d": {"src": "a", "sys_summs": {"M1": {"sys_summ": "s", "scores": {"coherence": 1, "consistency": 1, "fluency": 1}}}}}`,
			"data.json:1:68: d.sys_summs.M1.scores.relevance: missing"},
		{"missing src", `{"d": {"sys_summs": {}}}`, "data.json:1:7: d.src: missing"},
		{"no summaries", `{"d": {"src": "a", "sys_summs": {}}}`, "data.json:1:33: d.sys_summs: no summaries"},
		{"summ not string", `{"d": {"src": "a", "sys_summs": {"M1": {"sys_summ": 3, "scores": {}}}}}`, "data.json:1:53: d.sys_summs.M1.sys_summ: want string, got number"},
		{"huge number", `{"d": {"src": "a", "sys_summs": {"M1": {"sys_summ": "s", "scores": {"coherence": 1e999}}}}}`, "data.json:1:82: d.sys_summs.M1.scores.coherence: not a finite number"},
		{"empty doc id", `{"": {"src": "a"}}`, "data.json:1:6: empty document id"},
		{"empty", ``, "data.json:1:1: invalid JSON"},
		{"no documents", ` {}`, "data.json:1:2: no documents"},
		{"beyond bound", `{"d": {"src": "a", "sys_summs": {"M1": {"sys_summ": "s", "scores": {"coherence": 1e308, "consistency": 1e308, "fluency": 1e308, "relevance": 1e308}}}}}`, "data.json:1:82: d.sys_summs.M1.scores.coherence: 1e+308 is not a finite number within ±1e+15"},
		{"duplicate doc", `{"d": {}, "d": {}}`, "data.json:1:11: d: duplicate key"},
	})
}

func TestReadSummEvalJSONLPaired(t *testing.T) {
	d, err := Load(FormatSummEvalJSONL, filepath.Join("testdata", "model_annotations.aligned.paired.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	checkSummEvalJSONLFixture(t, d)
	if d.Contexts[0].Source != "The village of Brenna opened a new footbridge over the Lusk river on Saturday. The bridge replaces a ford that flooded every winter." {
		t.Errorf("source %q", d.Contexts[0].Source)
	}
}

func TestReadSummEvalJSONLStoryFiles(t *testing.T) {
	path := filepath.Join("testdata", "summeval-aligned", "model_annotations.aligned.jsonl")
	d, err := Load(FormatSummEvalJSONL, path)
	if err != nil {
		t.Fatal(err)
	}
	checkSummEvalJSONLFixture(t, d)
	// The article is the .story text before the first @highlight.
	want := "The village of Brenna opened a new footbridge over the Lusk river on Saturday.\n\nThe bridge replaces a ford that flooded every winter."
	if got := d.Contexts[0].Source; got != want {
		t.Errorf("source %q, want %q", got, want)
	}
	// Without a directory (Read), the missing article is an error.
	_, err = Read(FormatSummEvalJSONL, mustOpen(t, path), "aligned.jsonl")
	if err == nil || !strings.HasPrefix(err.Error(), "aligned.jsonl:1:1: text: missing") {
		t.Errorf("Read without text: %v", err)
	}
}

func checkSummEvalJSONLFixture(t *testing.T, d *model.Dataset) {
	t.Helper()
	if len(d.Contexts) != 2 || d.NumCandidates() != 6 {
		t.Fatalf("%d contexts, %d candidates; want 2 × 3", len(d.Contexts), d.NumCandidates())
	}
	if d.Task != model.TaskNewsSummary || d.Metric != model.MetricSpearman {
		t.Errorf("task %q metric %q", d.Task, d.Metric)
	}
	wantCrit := []string{"coherence", "consistency", "fluency", "relevance",
		"turker.coherence", "turker.consistency", "turker.fluency", "turker.relevance"}
	if !equalStrings(d.Criteria, wantCrit) {
		t.Errorf("criteria %v", d.Criteria)
	}
	ctx := "dm-test-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa01"
	// Hand calculation from the fixture: M11 experts coherence 4,5,4 →
	// 13/3; consistency 5; fluency 5,5,4 → 14/3; relevance 4,4,3 → 11/3;
	// target (13+15+14+11)/12 = 53/12. M23: (5+4+11+4)/12 = 2.
	m11 := candidate(t, d, ctx, "M11")
	if !near(m11.Scores["coherence"], 13.0/3) || !near(m11.Human, 53.0/12) {
		t.Errorf("M11 coherence %v target %v", m11.Scores["coherence"], m11.Human)
	}
	if got := candidate(t, d, ctx, "M23").Human; !near(got, 2) {
		t.Errorf("M23 target %v, want 2", got)
	}
	// Turker coherence 1..5 → mean 3; kept but not in the target.
	if !near(m11.Scores["turker.coherence"], 3) || m11.Extra["experts"] != "3" || m11.Extra["turkers"] != "5" {
		t.Errorf("turker coherence %v extra %v", m11.Scores["turker.coherence"], m11.Extra)
	}
	if got := d.Contexts[0].Extra["reference"]; got != "brenna opened a footbridge over the lusk river ." {
		t.Errorf("reference %q", got)
	}
}

func TestReadSummEvalJSONLErrors(t *testing.T) {
	checkErrors(t, FormatSummEvalJSONL, "ann.jsonl", []errorCase{
		{"syntax on line 2", "{\"id\": \"d\", \"model_id\": \"M1\", \"decoded\": \"s\", \"text\": \"a\", \"expert_annotations\": [{\"coherence\": 1, \"consistency\": 1, \"fluency\": 1, \"relevance\": 1}]}\n{\"id\": \"d\",", "ann.jsonl:2:"},
		{"score", `{"id": "d", "model_id": "M1", "decoded": "s", "text": "a", "expert_annotations": [{"coherence": "x"}]}`, "ann.jsonl:1:97: expert_annotations.0.coherence: not a number"},
		{"no experts", `{"id": "d", "model_id": "M1", "decoded": "s", "text": "a", "expert_annotations": []}`, "ann.jsonl:1:82: expert_annotations: no expert annotations"},
		{"missing criterion", `{"id": "d", "model_id": "M1", "decoded": "s", "text": "a", "expert_annotations": [{"coherence": 1, "consistency": 1, "fluency": 1}]}`, "ann.jsonl:1:82: expert_annotations.relevance: missing"},
		{"duplicate", "{\"id\": \"d\", \"model_id\": \"M1\", \"decoded\": \"s\", \"text\": \"a\", \"expert_annotations\": [{\"coherence\": 1, \"consistency\": 1, \"fluency\": 1, \"relevance\": 1}]}\n{\"id\": \"d\", \"model_id\": \"M1\", \"decoded\": \"s\", \"expert_annotations\": [{\"coherence\": 1, \"consistency\": 1, \"fluency\": 1, \"relevance\": 1}]}", "ann.jsonl:2:1: model_id: summary of \"d\" by \"M1\" given twice"},
		{"other article", "{\"id\": \"d\", \"model_id\": \"M1\", \"decoded\": \"s\", \"text\": \"a\", \"expert_annotations\": [{\"coherence\": 1, \"consistency\": 1, \"fluency\": 1, \"relevance\": 1}]}\n{\"id\": \"d\", \"model_id\": \"M2\", \"decoded\": \"s\", \"text\": \"b\", \"expert_annotations\": []}", "ann.jsonl:2:55: text: article differs"},
		{"no id", `{"model_id": "M1"}`, "ann.jsonl:1:1: id: missing"},
		{"blank", "\n\n", "ann.jsonl: no summaries"},
	})
}
