package model

import (
	"math"
	"strings"
	"testing"
)

func validDataset() *Dataset {
	return &Dataset{Name: "v", Task: TaskGeneric, Metric: MetricSpearman, Criteria: []string{"q"},
		Contexts: []Context{{ID: "c", Candidates: []Candidate{{ID: "a", Human: 1, Scores: map[string]float64{"q": 2}}, {ID: "b"}}}}}
}

func TestValidate(t *testing.T) {
	if err := validDataset().Validate(); err != nil {
		t.Fatalf("valid dataset: %v", err)
	}
	for _, tc := range []struct {
		name   string
		break_ func(d *Dataset)
		want   string
	}{
		{"no contexts", func(d *Dataset) { d.Contexts = nil }, "no contexts"},
		{"empty context id", func(d *Dataset) { d.Contexts[0].ID = "" }, "context 1 has an empty id"},
		{"duplicate context", func(d *Dataset) { d.Contexts = append(d.Contexts, d.Contexts[0]) }, `context "c" appears twice`},
		{"no candidates", func(d *Dataset) { d.Contexts[0].Candidates = nil }, `context "c" has no candidates`},
		{"empty candidate id", func(d *Dataset) { d.Contexts[0].Candidates[1].ID = "" }, "candidate 2 has an empty id"},
		{"duplicate candidate", func(d *Dataset) { d.Contexts[0].Candidates[1].ID = "a" }, `candidate "a" appears twice`},
		{"nan human", func(d *Dataset) { d.Contexts[0].Candidates[0].Human = math.NaN() }, "human score NaN is not finite"},
		{"inf human", func(d *Dataset) { d.Contexts[0].Candidates[0].Human = math.Inf(-1) }, "human score -Inf is not finite"},
		{"inf score", func(d *Dataset) { d.Contexts[0].Candidates[0].Scores["q"] = math.Inf(1) }, "q score +Inf is not finite"},
		{"unlisted score", func(d *Dataset) { d.Contexts[0].Candidates[0].Scores["z"] = 1 }, `score "z" is not a listed criterion`},
		{"duplicate criterion", func(d *Dataset) { d.Criteria = []string{"q", "q"} }, `criterion "q" listed twice`},
		{"empty criterion", func(d *Dataset) { d.Criteria = append(d.Criteria, "") }, "empty criterion name"},
		{"task", func(d *Dataset) { d.Task = "poem" }, `unknown task "poem"`},
		{"metric", func(d *Dataset) { d.Metric = "kendall" }, `unknown metric "kendall"`},
	} {
		d := validDataset()
		tc.break_(d)
		err := d.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), `dataset "v": `) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	var nilDS *Dataset
	if nilDS.Validate() == nil {
		t.Error("nil dataset validated")
	}
	d := validDataset()
	d.Task, d.Metric = "", ""
	if err := d.Validate(); err != nil {
		t.Errorf("empty task and metric mean the defaults: %v", err)
	}
}
