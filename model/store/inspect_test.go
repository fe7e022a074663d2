package store

import (
	"context"
	"math"
	"testing"
)

// Replies returns a candidate's answers in probe, wording, run order,
// without failures, other candidates or other banks.
func TestReplies(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	noScore := answer("c2", "b", "len:-", "0", 0)
	noScore.Score = math.NaN()
	other := answer("c2", "b", "baseline", "1", 9)
	other.BankHash = "other-bank"
	other.Key = keyOf("c2", "b", "other")
	err := s.PutResponses(ctx, []Response{
		answer("c2", "b", "len:+", "1", 4),
		answer("c2", "b", "len:+", "0", 5),
		answer("c2", "b", "baseline", "0", 3),
		noScore,
		failure("c2", "b", "baseline", "1", "timeout"),
		answer("c2", "a", "baseline", "0", 1),
		other,
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Replies(ctx, "tiny", "j", testBank, "c2", "b")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		probe, run, raw string
		score           float64
	}{
		{"baseline", "0", `{"score": 3}`, 3},
		{"len:+", "0", `{"score": 5}`, 5},
		{"len:+", "1", `{"score": 4}`, 4},
		{"len:-", "0", `{"score": 0}`, math.NaN()},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d replies %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		sameScore := g.Score == w.score || (math.IsNaN(g.Score) && math.IsNaN(w.score))
		if g.Probe != w.probe || g.Run != w.run || g.Raw != w.raw || !sameScore {
			t.Errorf("reply %d = %+v, want %+v", i, g, w)
		}
	}
	all, err := s.Replies(ctx, "tiny", "j", "", "c2", "b")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(want)+1 {
		t.Errorf("every bank: %d replies, want %d", len(all), len(want)+1)
	}
}
