package model_test

import (
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
)

// The demo dataset (package datasets) is the fixture of these tests.

func TestClone(t *testing.T) {
	a := datasets.Demo()
	b := a.Clone()
	b.Contexts[1].Extra = map[string]string{"x": "y"}
	b.Contexts[0].Candidates[0].Scores["fluency"] = 99
	b.Contexts[0].Candidates = b.Contexts[0].Candidates[:1]
	b.Criteria[1] = "z"
	if a.Contexts[1].Extra != nil || a.Contexts[0].Candidates[0].Scores["fluency"] == 99 || len(a.Contexts[0].Candidates) != 5 || a.Criteria[1] == "z" {
		t.Error("Clone shares state with the original")
	}
	var nilDS *model.Dataset
	if nilDS.Clone() != nil {
		t.Error("nil.Clone() != nil")
	}
}

func TestDatasetFind(t *testing.T) {
	d := datasets.Demo()
	last := d.Contexts[len(d.Contexts)-1]
	c, cand := d.Find(last.ID, last.Candidates[2].ID)
	if c == nil || cand == nil || c.ID != last.ID || cand.ID != last.Candidates[2].ID || cand.Text != last.Candidates[2].Text {
		t.Fatalf("Find(%s, %s) = %v, %v", last.ID, last.Candidates[2].ID, c, cand)
	}
	// The pointers are into the dataset, not copies.
	if cand != &d.Contexts[len(d.Contexts)-1].Candidates[2] {
		t.Error("Find returned a copy")
	}
	if c, cand := d.Find(last.ID, "no-such"); c == nil || cand != nil {
		t.Errorf("unknown candidate: %v, %v", c, cand)
	}
	if c, cand := d.Find("no-such", last.Candidates[0].ID); c != nil || cand != nil {
		t.Errorf("unknown context: %v, %v", c, cand)
	}
	if ci, ki := d.Locate(last.ID, last.Candidates[2].ID); ci != len(d.Contexts)-1 || ki != 2 {
		t.Errorf("Locate = %d, %d; want %d, 2", ci, ki, len(d.Contexts)-1)
	}
	if ci, ki := d.Locate("no-such", "x"); ci != -1 || ki != -1 {
		t.Errorf("Locate of an unknown context = %d, %d", ci, ki)
	}
}

func TestLabelsCSVRoundTrip(t *testing.T) {
	d := datasets.Demo()
	want := d.Labels()
	if len(want) != d.NumCandidates() {
		t.Fatalf("demo: %d labels for %d candidates", len(want), d.NumCandidates())
	}
	var buf strings.Builder
	if err := model.WriteLabelsCSV(&buf, want); err != nil {
		t.Fatal(err)
	}
	got, err := model.ReadLabelsCSV(strings.NewReader(buf.String()), "labels.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d labels, wrote %d", len(got), len(want))
	}
	for i := range want {
		g := got[i]
		if g.Context != want[i].Context || g.Candidate != want[i].Candidate || g.Human != want[i].Human || g.Line != i+2 {
			t.Errorf("label %d: got %+v, want %+v on line %d", i, g, want[i], i+2)
		}
	}
}
