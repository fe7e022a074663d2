package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/prism-eval/prism/model"
)

func engineFixture(t *testing.T) *Store {
	t.Helper()
	s := openTemp(t)
	ctx := context.Background()
	d := &model.Dataset{Name: "d", Format: "jsonl", Task: model.TaskGeneric, Metric: model.MetricSpearman,
		Contexts: []model.Context{{ID: "c1", Candidates: []model.Candidate{
			{ID: "a", Text: "x", Human: 2}, {ID: "b", Text: "y", Human: math.NaN()}}}}}
	if err := s.PutDataset(ctx, d, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutJudge(ctx, Judge{Name: "j", Backend: "openai", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPutRequestsAndRequestsByKey(t *testing.T) {
	s := engineFixture(t)
	ctx := context.Background()
	reqs := []Request{
		{Key: "k1", Judge: "j", Dataset: "d", Context: "c1", Candidate: "a", BankHash: "h", Probe: "baseline", Wording: "0", Run: "0"},
		{Key: "k1", Judge: "j", Dataset: "d", Context: "c1", Candidate: "a", BankHash: "h", Probe: "baseline", Wording: "0", Run: "1"},
		{Key: "k2", Judge: "j", Dataset: "d", Context: "c1", Candidate: "b", BankHash: "h", Probe: "baseline", Wording: "0", Run: "0"},
	}
	if err := s.PutRequests(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	// Recording them again is harmless.
	if err := s.PutRequests(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	got, err := s.RequestsByKey(ctx, "k1", "1")
	if err != nil || len(got) != 1 || got[0] != reqs[1] {
		t.Fatalf("RequestsByKey(k1, 1) = %+v, %v; want [%+v]", got, err, reqs[1])
	}
	if got, _ := s.RequestsByKey(ctx, "k9", "0"); len(got) != 0 {
		t.Errorf("unknown key found %+v", got)
	}
	// Requests without answers are pending and have no progress answers.
	pend, _ := s.Pending(ctx, reqs)
	if len(pend) != 3 {
		t.Errorf("%d pending, want 3", len(pend))
	}
	// A different key at recorded coordinates is refused.
	bad := reqs[0]
	bad.Key = "other"
	if err := s.PutRequests(ctx, []Request{bad}); err == nil {
		t.Error("a changed key at recorded coordinates was accepted")
	}
	// A missing judge is named.
	bad = reqs[0]
	bad.Judge = "nobody"
	if err := s.PutRequests(ctx, []Request{bad}); !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
}

func TestCachedAnswersAndFitInput(t *testing.T) {
	s := engineFixture(t)
	ctx := context.Background()
	if _, _, err := s.FitInput(ctx, "d", "j", ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("FitInput with no answers: %v, want ErrNotFound", err)
	}
	r := Request{Key: "k1", Judge: "j", Dataset: "d", Context: "c1", Candidate: "a", BankHash: "h", Probe: "baseline", Wording: "0", Run: "0"}
	fail := r
	fail.Key, fail.Candidate = "k2", "b"
	if err := s.PutResponses(ctx, []Response{
		{Request: r, Raw: `{"score": 7}`, Score: 7},
		{Request: fail, ErrKind: "server", Err: "HTTP 500", Score: math.NaN()},
	}); err != nil {
		t.Fatal(err)
	}
	// Many pairs in one call, across several statements (more keys than
	// one chunk holds): only (k1, 0) has an answer; failures, other run
	// labels and unknown keys are not answers.
	want := [][2]string{{"k1", "0"}, {"k2", "0"}, {"k1", "1"}}
	for i := range cachedChunk + 10 {
		want = append(want, [2]string{fmt.Sprintf("nokey%d", i), "0"})
	}
	got, err := s.CachedAnswers(ctx, want)
	if a, ok := got[[2]string{"k1", "0"}]; err != nil || len(got) != 1 || !ok || a.Score != 7 || a.Candidate != "a" {
		t.Fatalf("CachedAnswers = %+v, %v; want only (k1, 0) with score 7: failures are not answers", got, err)
	}
	rows, labels, err := s.FitInput(ctx, "d", "j", "h")
	if err != nil {
		t.Fatal(err)
	}
	// One answered row; the failed cell is missing. Candidate b has no
	// human score, so only a is labelled.
	if len(rows) != 1 || rows[0].Score != 7 || rows[0].Candidate != "a" {
		t.Errorf("rows = %+v", rows)
	}
	if len(labels) != 1 || labels[0] != (model.Label{Context: "c1", Candidate: "a", Human: 2}) {
		t.Errorf("labels = %+v", labels)
	}
	if _, _, err := s.FitInput(ctx, "nope", "j", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing dataset: %v", err)
	}
}
