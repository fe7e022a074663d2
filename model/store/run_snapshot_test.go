package store

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"
)

// snapshotRow is a row of score_snapshots (snapshotParts).
type snapshotRow struct {
	study, part, gen int64
	body             string
}

func snapshotParts(t *testing.T, s *Store) []snapshotRow {
	t.Helper()
	rows, err := s.r.Query(`SELECT study_id, part, generation, body FROM score_snapshots ORDER BY study_id, part`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []snapshotRow
	for rows.Next() {
		var r snapshotRow
		if err := rows.Scan(&r.study, &r.part, &r.gen, &r.body); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkReleasedSnapshot checks what the fixture's release left: the
// snapshot is the one SnapshotScores writes from reading the tables
// (written again after deleting it), and the lease's progress, when it
// has one, is the study's count. It reports whether the release wrote the
// run's own snapshot.
func checkReleasedSnapshot(t *testing.T, f *runFixture) bool {
	t.Helper()
	ctx := context.Background()
	got := snapshotParts(t, f.s)
	if len(got) == 0 {
		t.Fatal("the release wrote no snapshot")
	}
	if _, err := f.s.w.Exec(`DELETE FROM score_snapshots`); err != nil {
		t.Fatal(err)
	}
	if err := f.s.SnapshotScores(ctx, "tiny", "j", testBank); err != nil {
		t.Fatal(err)
	}
	if want := snapshotParts(t, f.s); !reflect.DeepEqual(got, want) {
		t.Errorf("the release's snapshot is not the one read from the tables:\n%+v\nwant\n%+v", got, want)
	}
	want, err := f.s.Progress(ctx, "tiny", "j", testBank)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := f.lease.StudyProgress()
	if ok && p != want {
		t.Errorf("the lease's progress %+v, the study's %+v", p, want)
	}
	return ok
}

// runFixture is a workspace with a run's lease and its writer, and a
// second workspace holding the same responses written directly, to
// compare with.
type runFixture struct {
	s, ref *Store
	lease  *Lease
	w      *ResponseWriter
}

func newRunFixture(t *testing.T) *runFixture {
	t.Helper()
	ctx := context.Background()
	f := &runFixture{s: openTemp(t), ref: openTemp(t)}
	seedJudgeAndDataset(t, f.s)
	seedJudgeAndDataset(t, f.ref)
	var err error
	if f.lease, err = f.s.AcquireStudy(ctx, "tiny", 0, "j", testBank); err != nil {
		t.Fatal(err)
	}
	if f.w, err = f.s.NewRunWriter(ctx, f.lease); err != nil {
		t.Fatal(err)
	}
	return f
}

// fold commits rs through the run's writer and writes them to the
// reference.
func (f *runFixture) fold(t *testing.T, rs ...Response) {
	t.Helper()
	if err := f.w.Put(context.Background(), rs); err != nil {
		t.Fatal(err)
	}
	if err := f.ref.PutResponses(context.Background(), rs); err != nil {
		t.Fatal(err)
	}
}

func (f *runFixture) closeAndRelease(t *testing.T) {
	t.Helper()
	if err := f.w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.lease.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// manyAnswers is n answers over 2 contexts × 3 candidates × probes and 2
// runs, every 7th a failure and every 11th without a parsed score.
func manyAnswers(n int) []Response {
	var rs []Response
	cands := [][2]string{{"c1", "x"}, {"c2", "a"}, {"c2", "b"}}
	for i := range n {
		c := cands[i%3]
		probe, run := fmt.Sprintf("p%d", i/6), fmt.Sprint(i/3%2)
		switch {
		case i%7 == 3:
			rs = append(rs, failure(c[0], c[1], probe, run, "timeout"))
		case i%11 == 5:
			rs = append(rs, answer(c[0], c[1], probe, run, math.NaN()))
		default:
			rs = append(rs, answer(c[0], c[1], probe, run, float64(i%10)+0.25*float64(i%4)))
		}
	}
	return rs
}

// A run on a study without rows: the release writes the snapshot the
// run's writer built from its commits (several folds, failures, answers without
// a score, a fold of one), which is byte for byte the one read from the
// tables, and the lease's progress is the study's count.
func TestRunSnapshotIsTheTables(t *testing.T) {
	smallParts(t)
	ctx := context.Background()
	f := newRunFixture(t)
	rs := manyAnswers(200)
	f.fold(t, rs[:1]...)
	f.fold(t, rs[1:90]...)
	f.fold(t, rs[90:150]...)
	// Parts are written as they fill (in the next fold), under a
	// generation no reader takes.
	var parts, provisional int
	if err := f.s.r.QueryRow(`SELECT count(*), count(CASE WHEN generation = -1 THEN 1 END) FROM score_snapshots`).Scan(&parts, &provisional); err != nil {
		t.Fatal(err)
	}
	if parts == 0 || provisional != parts {
		t.Errorf("during the run: %d parts, %d of them provisional; want some, all provisional", parts, provisional)
	}
	got, err := f.s.Scores(ctx, "tiny", "j", testBank)
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.ref.Scores(ctx, "tiny", "j", testBank)
	if err != nil {
		t.Fatal(err)
	}
	if scoreText(got) != scoreText(want) {
		t.Errorf("Scores during the run:\n%s\nwant the tables'\n%s", scoreText(got), scoreText(want))
	}
	f.fold(t, rs[150:]...)
	f.closeAndRelease(t)
	if !checkReleasedSnapshot(t, f) {
		t.Error("the release did not write the run's snapshot")
	}
	if n := len(snapshotParts(t, f.s)); n < 3 {
		t.Errorf("%d parts, want several", n)
	}
}

// smallParts makes snapshot parts of 7 answers for the test.
func smallParts(t *testing.T) {
	old := snapshotPart
	snapshotPart = 7
	t.Cleanup(func() { snapshotPart = old })
}

// Where the study held rows the run did not create, or the table
// parts the run did not write, the release reads the tables instead: rows
// from before the run; a row one fold created and a later one answered; a
// write by someone else between two folds, or after the last; a snapshot
// written over the run's parts; a part of the run's deleted.
func TestRunSnapshotGivesWayToTheTables(t *testing.T) {
	smallParts(t)
	ctx := context.Background()
	rs := manyAnswers(60)
	other := answer("c1", "x", "other", "0", 2)
	cases := []struct {
		name string
		run  func(t *testing.T, f *runFixture)
	}{
		{"rows before the run", func(t *testing.T, f *runFixture) {
			if err := f.s.PutResponses(ctx, []Response{other}); err != nil {
				t.Fatal(err)
			}
			f.fold(t, rs...)
			f.closeAndRelease(t)
		}},
		{"a retry answered in a later fold", func(t *testing.T, f *runFixture) {
			f.fold(t, rs[:30]...)
			if rs[3].Answered() {
				t.Fatal("rs[3] is not a failure")
			}
			retry := answer(rs[3].Context, rs[3].Candidate, rs[3].Probe, rs[3].Run, 6)
			f.fold(t, append([]Response{retry}, rs[30:]...)...) // with new rows
			f.closeAndRelease(t)
		}},
		{"a write between folds", func(t *testing.T, f *runFixture) {
			f.fold(t, rs[:30]...)
			if err := f.s.PutResponses(ctx, []Response{other}); err != nil {
				t.Fatal(err)
			}
			f.fold(t, rs[30:]...)
			f.closeAndRelease(t)
		}},
		{"a snapshot written over the run's parts", func(t *testing.T, f *runFixture) {
			f.fold(t, rs[:20]...)
			f.fold(t, rs[20:40]...) // writes the parts of the first fold's rows
			if err := f.s.SnapshotScores(ctx, "tiny", "j", testBank); err != nil {
				t.Fatal(err)
			}
			f.fold(t, rs[40:]...)
			f.closeAndRelease(t)
		}},
		{"a part of the run's gone", func(t *testing.T, f *runFixture) {
			f.fold(t, rs[:20]...)
			f.fold(t, rs[20:40]...) // writes the parts of the first fold's rows
			f.fold(t, rs[40:]...)
			if err := f.w.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := f.s.w.Exec(`DELETE FROM score_snapshots WHERE part = 0`); err != nil {
				t.Fatal(err)
			}
			if err := f.lease.Release(ctx); err != nil {
				t.Fatal(err)
			}
		}},
		{"a write after the last fold", func(t *testing.T, f *runFixture) {
			f.fold(t, rs...)
			if err := f.w.Close(); err != nil {
				t.Fatal(err)
			}
			if !f.lease.Built() {
				t.Fatal("the writer built no snapshot")
			}
			if err := f.s.PutResponses(ctx, []Response{other}); err != nil {
				t.Fatal(err)
			}
			if err := f.lease.Release(ctx); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newRunFixture(t)
			c.run(t, f)
			if checkReleasedSnapshot(t, f) {
				t.Error("the release wrote the run's snapshot")
			}
		})
	}
}
