package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestSnapshotAnswersEqualsAnsweredIn: the answered set read from a
// study's current score snapshot is AnsweredIn's, for any contexts
// (answers without a score, failures never answered, answers of another
// bank, a context twice or unknown), the snapshot in one part or many; no
// set is read from a snapshot that is missing or stale, and a study that
// is not there has an empty one.
func TestSnapshotAnswersEqualsAnsweredIn(t *testing.T) {
	for _, part := range []int{1 << 16, 2} {
		t.Run(fmt.Sprint(part), func(t *testing.T) {
			defer func(was int) { snapshotPart = was }(snapshotPart)
			snapshotPart = part
			snapshotAnswersEqualsAnsweredIn(t)
		})
	}
}

func snapshotAnswersEqualsAnsweredIn(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	putJudgeJRows(t, s)
	if a, err := s.SnapshotAnswers(ctx, "j", "tiny", testBank); err != nil || a != nil {
		t.Fatalf("SnapshotAnswers before any snapshot: %v, %v; want none", a, err)
	}
	release := func() {
		t.Helper()
		l, err := s.AcquireStudy(ctx, "tiny", 0, "j", testBank)
		if err == nil {
			err = l.Release(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	release()
	a, err := s.SnapshotAnswers(ctx, "j", "tiny", testBank)
	if err != nil || a == nil {
		t.Fatalf("SnapshotAnswers after the release: %v, %v", a, err)
	}
	for _, ids := range [][]string{{"c1", "c2"}, {"c2"}, {"c1"}, {"c2", "c2", "nosuch"}, {"nosuch"}, nil} {
		want, err := s.AnsweredIn(ctx, "j", "tiny", testBank, ids)
		if err != nil {
			t.Fatal(err)
		}
		got := a.In(ids)
		if got.Len() != want.Len() || !slices.Equal(answeredList(got), answeredList(want)) {
			t.Fatalf("contexts %v: from the snapshot %d %v\nfrom the requests %d %v", ids, got.Len(), answeredList(got), want.Len(), answeredList(want))
		}
		want.Each(func(c, k, p, w, r string) {
			if !got.Has(c, k, p, w, r) {
				t.Errorf("contexts %v: Has(%s %s %s %s %s) false", ids, c, k, p, w, r)
			}
		})
		// Every combination of the coordinates answered anywhere, asked
		// candidate by candidate in one order and then another (the
		// view's memo of the conditions asked hits, then misses).
		var grid [][5]string
		for _, pair := range [][2]string{{"c1", "x"}, {"c2", "a"}, {"c2", "b"}, {"c3", "x"}} {
			for _, probe := range []string{"baseline", "ATTR:+", "ATTR:-", "neutral:n", "nosuch"} {
				for _, run := range []string{"0", "1", "2"} {
					grid = append(grid, [5]string{pair[0], pair[1], probe, "0", run})
				}
			}
		}
		for pass := range 2 {
			for _, c := range grid {
				if got.Has(c[0], c[1], c[2], c[3], c[4]) != want.Has(c[0], c[1], c[2], c[3], c[4]) {
					t.Errorf("contexts %v, pass %d: Has(%v) %v from the snapshot", ids, pass, c, got.Has(c[0], c[1], c[2], c[3], c[4]))
				}
			}
			slices.Reverse(grid)
		}
		// Failed and never answered; answered only under another bank;
		// answered, but in a context not asked for.
		for _, c := range [][5]string{{"c1", "x", "baseline", "0", "0"}, {"c2", "b", "baseline", "0", "2"}, {"c2", "a", "baseline", "0", "0"}} {
			if got.Has(c[0], c[1], c[2], c[3], c[4]) != want.Has(c[0], c[1], c[2], c[3], c[4]) {
				t.Errorf("contexts %v: Has(%v) %v from the snapshot", ids, c, got.Has(c[0], c[1], c[2], c[3], c[4]))
			}
		}
	}
	if all, _ := s.AnsweredIn(ctx, "j", "tiny", testBank, []string{"c1", "c2"}); a.Len() != all.Len() || a.Len() == 0 {
		t.Fatalf("Len %d, want %d", a.Len(), all.Len())
	}
	if none, err := s.SnapshotAnswers(ctx, "j", "tiny", "nosuchbank"); err != nil || none == nil || none.Len() != 0 {
		t.Fatalf("SnapshotAnswers of no study: %v, %v; want an empty set", none, err)
	}
	// A write to the study makes its snapshot stale: no set, until the
	// next release writes a current one.
	if err := s.PutResponses(ctx, []Response{answer("c1", "x", "ATTR:+", "0", 4)}); err != nil {
		t.Fatal(err)
	}
	if a, err := s.SnapshotAnswers(ctx, "j", "tiny", testBank); err != nil || a != nil {
		t.Fatalf("SnapshotAnswers of a stale snapshot: %v, %v; want none", a, err)
	}
	release()
	a, err = s.SnapshotAnswers(ctx, "j", "tiny", testBank)
	if err != nil || a == nil || !a.In([]string{"c1"}).Has("c1", "x", "ATTR:+", "0", "0") {
		t.Fatalf("SnapshotAnswers after the write and a release: %v, %v; want the new answer", a, err)
	}
}
