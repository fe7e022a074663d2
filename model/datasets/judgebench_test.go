package datasets

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/prism-eval/prism/model"
)

const judgeBenchTiny = `{"pair_id": "p1", "original_id": 6603, "source": "mmlu-pro-health", "question": "Q1?", "response_model": "m", "response_A": "a1", "response_B": "b1", "label": "A>B"}
{"pair_id": "p2", "original_id": null, "source": "livebench-math", "question": "Q2?", "response_model": "m", "response_A": "a2", "response_B": "b2", "label": "B>A"}
`

func TestReadJudgeBench(t *testing.T) {
	d := readString(t, FormatJudgeBench, "jb.jsonl", judgeBenchTiny)
	if len(d.Contexts) != 2 || d.Metric != model.MetricPairwise || d.Task != model.TaskAnswer {
		t.Fatalf("%d contexts, metric %q task %q", len(d.Contexts), d.Metric, d.Task)
	}
	p1, p2 := d.Contexts[0], d.Contexts[1]
	if p1.ID != "p1" || p1.Source != "Q1?" || p1.Extra["original_id"] != "6603" || p1.Extra["source"] != "mmlu-pro-health" {
		t.Errorf("p1 %+v", p1)
	}
	if _, ok := p2.Extra["original_id"]; ok {
		t.Errorf("null original_id kept: %v", p2.Extra)
	}
	for _, tc := range []struct {
		c      model.Context
		hA, hB float64
	}{{p1, 1, 0}, {p2, 0, 1}} {
		a, b := tc.c.Candidates[0], tc.c.Candidates[1]
		if a.ID != "A" || b.ID != "B" || a.Human != tc.hA || b.Human != tc.hB || a.Scores["correct"] != tc.hA {
			t.Errorf("%s: A %+v B %+v", tc.c.ID, a, b)
		}
	}
	if p1.Candidates[1].Text != "b1" {
		t.Errorf("text %q", p1.Candidates[1].Text)
	}
}

func TestLoadJudgeBenchDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.jsonl", `{"pair_id": "p3", "question": "Q3?", "response_A": "a", "response_B": "b", "label": "A>B"}`+"\n")
	write("a.jsonl", judgeBenchTiny)
	write("notes.txt", "not read")
	d, err := Load(FormatJudgeBench, dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range d.Contexts {
		ids = append(ids, c.ID)
	}
	if !equalStrings(ids, []string{"p1", "p2", "p3"}) {
		t.Errorf("ids %v, want files in name order", ids)
	}
	// The same pair in two files is an error naming both places.
	write("c.jsonl", "\n"+`{"pair_id": "p2", "question": "Q", "response_A": "a", "response_B": "b", "label": "A>B"}`)
	_, err = Load(FormatJudgeBench, dir)
	want := filepath.Join(dir, "c.jsonl") + ":2:13: pair_id: \"p2\" already given at " + filepath.Join(dir, "a.jsonl") + ":2"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
	if _, err := Load(FormatJudgeBench, t.TempDir()); err == nil {
		t.Error("empty directory: no error")
	}
	if _, err := Load(FormatSummEval, dir); err == nil {
		t.Error("summeval from a directory: no error")
	}
}

func TestReadJudgeBenchErrors(t *testing.T) {
	checkErrors(t, FormatJudgeBench, "jb.jsonl", []errorCase{
		{"tie", `{"pair_id": "p", "question": "q", "response_A": "a", "response_B": "b", "label": "A=B"}`, `jb.jsonl:1:82: label: want "A>B" or "B>A", got "A=B"`},
		{"no B", `{"pair_id": "p", "question": "q", "response_A": "a", "label": "A>B"}`, "jb.jsonl:1:1: response_B: missing"},
		{"array", `[1]`, "jb.jsonl:1:1: want object, got array"},
		{"dup", "{\"pair_id\": \"p\", \"question\": \"q\", \"response_A\": \"a\", \"response_B\": \"b\", \"label\": \"A>B\"}\n\n{\"pair_id\": \"p\"}", "jb.jsonl:3:13: pair_id: \"p\" already given at jb.jsonl:1"},
		{"bad line", "{\"pair_id\": \"p\", \"question\": \"q\", \"response_A\": \"a\", \"response_B\": \"b\", \"label\": \"A>B\"}\n{\"pair_id\": }", "jb.jsonl:2:13: invalid JSON"},
		{"nothing", "", "jb.jsonl: no pairs"},
	})
}
