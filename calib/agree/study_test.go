package agree

import (
	"testing"

	"github.com/prism-eval/prism/model"
)

// BaselineMeans averages each candidate's baseline answers over repeats
// and leaves out probe answers and missing ones.
func TestBaselineMeans(t *testing.T) {
	rows := []model.ScoreRow{
		{Context: "c", Candidate: "a", Probe: model.ProbeBaseline, Run: "0", Score: 2},
		{Context: "c", Candidate: "a", Probe: model.ProbeBaseline, Run: "1", Score: 5},
		{Context: "c", Candidate: "a", Probe: "coverage:+", Run: "0", Score: 9},
		{Context: "c", Candidate: "b", Probe: model.ProbeBaseline, Run: "0", Score: 4},
		{Context: "c", Candidate: "b", Probe: model.ProbeBaseline, Run: "1", Missing: true},
		{Context: "c", Candidate: "x", Probe: model.ProbeBaseline, Missing: true},
	}
	got := BaselineMeans(rows)
	want := map[Key]float64{{"c", "a"}: 3.5, {"c", "b"}: 4}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%v: %g, want %g", k, got[k], w)
		}
	}
}
