package store

import (
	"context"
	"reflect"
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
