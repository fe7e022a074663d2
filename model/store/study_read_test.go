package store

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/prism-eval/prism/model"
)

// TestScanReadEqualsScanFitInput: one decode of a study's snapshot
// (ReadStudy) gives SnapshotAnswers' set and, walked by ScanRead with the
// dataset as stored, ScanFitInput's rows and labels exactly; after a
// write to the study ScanRead reads it again, as ScanFitInput does.
func TestScanReadEqualsScanFitInput(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	putJudgeJRows(t, s)
	if r, err := s.ReadStudy(ctx, "tiny", "j", testBank, true); err != nil || r.Answers() != nil || r.Holds("tiny", "j", testBank) {
		t.Fatalf("ReadStudy before any snapshot: %v; want no answers, nothing held", err)
	}
	l, err := s.AcquireStudy(ctx, "tiny", 0, "j", testBank)
	if err == nil {
		err = l.Release(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Dataset(ctx, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	scan := func(r *StudyRead) (string, []model.Label) {
		t.Helper()
		var rows []model.ScoreRow
		labels, err := s.ScanRead(ctx, r, d, nil, func(row *model.ScoreRow) error { rows = append(rows, *row); return nil })
		if err != nil {
			t.Fatal(err)
		}
		return scoreText(rows), labels
	}
	want := func() (string, []model.Label) {
		t.Helper()
		var rows []model.ScoreRow
		labels, err := s.ScanFitInput(ctx, "tiny", "j", testBank, nil, func(row *model.ScoreRow) error { rows = append(rows, *row); return nil })
		if err != nil {
			t.Fatal(err)
		}
		return scoreText(rows), labels
	}
	r, err := s.ReadStudy(ctx, "tiny", "j", testBank, true)
	if err != nil || !r.Holds("tiny", "j", testBank) || r.Holds("tiny", "j", "other") {
		t.Fatalf("ReadStudy after a release: %v; want the study held", err)
	}
	snap, err := s.SnapshotAnswers(ctx, "j", "tiny", testBank)
	if err != nil || snap == nil || r.Answers().Len() != snap.Len() || snap.Len() == 0 {
		t.Fatalf("answers %d, SnapshotAnswers' %v (%v)", r.Answers().Len(), snap, err)
	}
	ids := []string{"c1", "c2", "c3"}
	if g, w := answeredList(r.Answers().In(ids)), answeredList(snap.In(ids)); !reflect.DeepEqual(g, w) {
		t.Fatalf("answers %v, SnapshotAnswers' %v", g, w)
	}
	// HasAll asks about a candidate's conditions at once, as Has does
	// one by one.
	a, in := r.Answers(), r.Answers().In(ids)
	var conds [][3]string
	for _, probe := range []string{"baseline", "ATTR:+", "ATTR:-", "neutral:n"} {
		for _, run := range []string{"0", "1", "2"} {
			conds = append(conds, [3]string{probe, "0", run})
		}
	}
	for _, pair := range [][2]string{{"c1", "x"}, {"c2", "a"}, {"c2", "b"}, {"c3", "x"}, {"c9", "z"}} {
		for lo := range conds {
			for hi := lo + 1; hi <= len(conds) && hi <= lo+3; hi++ {
				want, need := true, []int32{}
				for _, c := range conds[lo:hi] {
					want = want && in.Has(pair[0], pair[1], c[0], c[1], c[2])
					if i := a.Cond(c[0], c[1], c[2]); i >= 0 {
						need = append(need, i)
					}
				}
				slices.Sort(need)
				if got := len(need) == hi-lo && a.HasAll(pair[0], pair[1], need); got != want {
					t.Errorf("HasAll(%v, %v) %v, Has %v", pair, conds[lo:hi], got, want)
				}
			}
		}
	}
	for range 2 { // a second walk of the same decode gives the same rows
		gotRows, gotLabels := scan(r)
		wantRows, wantLabels := want()
		if gotRows == "" || gotRows != wantRows || !reflect.DeepEqual(gotLabels, wantLabels) {
			t.Fatalf("ScanRead:\n%s%v\nScanFitInput:\n%s%v", gotRows, gotLabels, wantRows, wantLabels)
		}
	}
	if k, err := s.ReadStudy(ctx, "tiny", "j", testBank, false); err != nil || k.Answers() == nil || k.Holds("tiny", "j", testBank) {
		t.Fatalf("ReadStudy without rows: %v; want answers, no rows held", err)
	}
	// A write after the decode: ScanRead reads the study again.
	if err := s.PutResponses(ctx, []Response{answer("c1", "x", "ATTR:+", "0", 4)}); err != nil {
		t.Fatal(err)
	}
	gotRows, gotLabels := scan(r)
	wantRows, wantLabels := want()
	if gotRows != wantRows || !reflect.DeepEqual(gotLabels, wantLabels) {
		t.Fatalf("ScanRead after a write:\n%s\nScanFitInput:\n%s", gotRows, wantRows)
	}
}
