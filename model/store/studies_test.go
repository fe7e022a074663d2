package store

import (
	"context"
	"reflect"
	"testing"
)

func TestStudies(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	if st, err := s.Studies(ctx); err != nil || len(st) != 0 {
		t.Fatalf("Studies of an empty workspace = %+v, %v", st, err)
	}
	// b answered (after a failure); a failed twice; c answered.
	err := s.PutResponses(ctx, []Response{
		failure("c2", "b", "baseline", "0", "timeout"),
		answer("c2", "b", "baseline", "0", 4),
		failure("c2", "a", "baseline", "0", "timeout"),
		failure("c2", "a", "baseline", "0", "http-429"),
		answer("c1", "x", "baseline", "0", 2),
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Studies(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := StudyInfo{Dataset: "tiny", Judge: "j", BankHash: testBank, Requests: 3, Answered: 2, Failed: 1, Failures: 3,
		PlanAnswered: 2, PlanFailed: 1, Runs: []string{"0"}, Generation: 1}
	if len(st) != 1 || !reflect.DeepEqual(st[0], want) {
		t.Errorf("Studies = %+v, want [%+v]", st, want)
	}
}
