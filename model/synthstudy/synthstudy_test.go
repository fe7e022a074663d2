package synthstudy

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
)

func TestDatasetIsValidAndDeterministic(t *testing.T) {
	d := Dataset(20, 16, 1)
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.NumCandidates() != 320 || len(d.Contexts) != 20 {
		t.Fatalf("%d contexts, %d candidates", len(d.Contexts), d.NumCandidates())
	}
	if !reflect.DeepEqual(d, Dataset(20, 16, 1)) {
		t.Error("the same arguments gave another dataset")
	}
	if reflect.DeepEqual(d, Dataset(20, 16, 2)) {
		t.Error("another seed gave the same dataset")
	}
	texts := map[string]bool{}
	for _, c := range d.Contexts {
		for _, k := range c.Candidates {
			texts[k.Text] = true
		}
	}
	if len(texts) < 300 {
		t.Errorf("only %d distinct candidate texts of 320", len(texts))
	}
}

func TestScoresShape(t *testing.T) {
	rows, labels := Scores(3, 4, 2, 2, 9)
	if len(labels) != 12 || len(rows) != 12*(1+2*2*2) {
		t.Fatalf("%d labels, %d rows", len(labels), len(rows))
	}
	for _, r := range rows {
		if _, _, _, err := model.ParseProbe(r.Probe); err != nil {
			t.Errorf("row probe %q: %v", r.Probe, err)
		}
	}
	again, _ := Scores(3, 4, 2, 2, 9)
	if !reflect.DeepEqual(rows, again) {
		t.Error("not deterministic")
	}
}

// The JSONL file imports back as the same dataset (ids, texts, sources,
// human scores).
func TestWriteJSONLRoundTrip(t *testing.T) {
	d := Dataset(4, 3, 5)
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, d); err != nil {
		t.Fatal(err)
	}
	got, err := datasets.Read("jsonl", &buf, "synth.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Contexts) != 4 || got.Task != d.Task {
		t.Fatalf("%d contexts, task %q", len(got.Contexts), got.Task)
	}
	for g, c := range got.Contexts {
		want := d.Contexts[g]
		if c.ID != want.ID || c.Source != want.Source || len(c.Candidates) != 3 {
			t.Fatalf("context %d: %q", g, c.ID)
		}
		for i, k := range c.Candidates {
			if k.ID != want.Candidates[i].ID || k.Text != want.Candidates[i].Text || k.Human != want.Candidates[i].Human {
				t.Errorf("%s/%s differs", c.ID, k.ID)
			}
		}
	}
}
