package store_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// A study's life in the store: a dataset, a judge, answers, and the tidy
// scores that calib fits.
func Example() {
	dir, err := os.MkdirTemp("", "prism-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(dir, "study.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	d := &model.Dataset{Name: "toy", Format: "csv", Task: model.TaskGeneric, Metric: model.MetricSpearman,
		Contexts: []model.Context{{ID: "q1", Source: "What is 2+2?", Candidates: []model.Candidate{
			{ID: "a", Text: "4", Human: 5}, {ID: "b", Text: "5", Human: 1}}}}}
	if err := s.PutDataset(ctx, d, false); err != nil {
		log.Fatal(err)
	}
	if _, err := s.PutJudge(ctx, store.Judge{Name: "mini", Backend: "openai", Model: "gpt-4o-mini",
		Params: map[string]any{"temperature": 0, "api_key": "sk-never-stored-0123456789"}}); err != nil {
		log.Fatal(err)
	}
	var rs []store.Response
	for _, c := range d.Contexts[0].Candidates {
		msgs := []store.Message{{Role: "system", Content: "You are a judge."}, {Role: "user", Content: c.Text}}
		key, _ := store.RequestKey("openai", "gpt-4o-mini", map[string]any{"temperature": 0}, msgs)
		r := store.Request{Key: key, Judge: "mini", Dataset: "toy", Context: "q1", Candidate: c.ID,
			BankHash: "h", Probe: "baseline", Wording: "0", Run: "0"}
		rs = append(rs, store.Response{Request: r, Raw: `{"score": 3}`, Score: 3})
	}
	if err := s.PutResponses(ctx, rs); err != nil {
		log.Fatal(err)
	}
	rows, err := s.Scores(ctx, "toy", "mini", "h")
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rows {
		fmt.Println(r.Context, r.Candidate, r.Probe, r.Score)
	}
	j, _ := s.Judge(ctx, "mini")
	fmt.Println(j.Params)
	// Output:
	// q1 a baseline 3
	// q1 b baseline 3
	// map[temperature:0]
}
