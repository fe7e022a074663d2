package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

// decodeSnapshot adds the answers of a snapshot's parts, in order, to sr
// under bank, all or nothing, as readSnapshot does with the parts it
// reads: a malformed part adds no answer and returns errSnapshot (it may
// leave sr knowing candidates and conditions that no answer uses, which
// no row shows).
func decodeSnapshot(parts [][]byte, sr *studyRows, bank string) error {
	start := sr.recs.len()
	d := snapshotDecoder{sr: sr, bank: bank}
	for _, body := range parts {
		if err := d.part(body); err != nil {
			sr.recs.truncate(start)
			return err
		}
	}
	return nil
}

func scoreText(rows []model.ScoreRow) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%s/%s %s %s %s %v %016x\n", r.Context, r.Candidate, r.Probe, r.Wording, r.Run, r.Missing, math.Float64bits(r.Score))
	}
	return b.String()
}

func snapshotRows(t *testing.T, s *Store) (n int, generation int64) {
	t.Helper()
	if err := s.r.QueryRow(`SELECT count(*), coalesce(max(generation), -1) FROM score_snapshots`).Scan(&n, &generation); err != nil {
		t.Fatal(err)
	}
	return n, generation
}

// putJudgeJRows stores judge j's answers and failures of version4Rows.
func putJudgeJRows(t *testing.T, s *Store) {
	t.Helper()
	rs, _ := version4Rows()
	var mine []Response
	for _, r := range rs {
		if r.Judge == "j" {
			mine = append(mine, r)
		}
	}
	if err := s.PutResponses(context.Background(), mine); err != nil {
		t.Fatal(err)
	}
}

// TestScoresSnapshot: a study's snapshot gives Scores' rows exactly; it
// is written when a lease is released, used only at the study's current
// generation (any later write makes it stale), and a malformed one is
// passed over.
func TestScoresSnapshot(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	putJudgeJRows(t, s)
	scanned := scoreText(s.mustScores(t, "tiny", "j", testBank).([]model.ScoreRow))
	if scanned == "" || scanned != scoreText(scoresBySQL(t, s, "tiny", "j", testBank)) {
		t.Fatalf("Scores before any snapshot:\n%s\nwant\n%s", scanned, scoreText(scoresBySQL(t, s, "tiny", "j", testBank)))
	}

	l, err := s.AcquireStudy(ctx, "tiny", 0, "j", testBank)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := snapshotRows(t, s); n != 1 {
		t.Fatalf("%d snapshots after the release, want 1", n)
	}
	if got := scoreText(s.mustScores(t, "tiny", "j", testBank).([]model.ScoreRow)); got != scanned {
		t.Fatalf("Scores from the snapshot:\n%s\nwant\n%s", got, scanned)
	}
	all := scoreText(s.mustScores(t, "tiny", "j", "").([]model.ScoreRow)) // snapshot and other bank's scan
	if all != scoreText(scoresBySQL(t, s, "tiny", "j", "")) {
		t.Fatalf("Scores over all banks:\n%s", all)
	}

	// The snapshot is what Scores reads: one that says otherwise wins
	// while it is current.
	var studyID, gen int64
	if err := s.r.QueryRow(`SELECT study_id, generation FROM score_snapshots`).Scan(&studyID, &gen); err != nil {
		t.Fatal(err)
	}
	fake := newSnapshotWriter(nil)
	if err := errors.Join(fake.add(&[6]string{"c1", "x", "ATTR:+", "7", "0", "42"}), fake.close()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`UPDATE score_snapshots SET body = ?`, fake.parts[0]); err != nil {
		t.Fatal(err)
	}
	if got := s.mustScores(t, "tiny", "j", testBank).([]model.ScoreRow); len(got) != 1 || got[0].Score != 42 || got[0].Wording != "7" {
		t.Fatalf("Scores did not read the snapshot: %v", got)
	}
	// A malformed one is passed over.
	if _, err := s.w.Exec(`UPDATE score_snapshots SET body = x'0105'`); err != nil {
		t.Fatal(err)
	}
	if got := scoreText(s.mustScores(t, "tiny", "j", testBank).([]model.ScoreRow)); got != scanned {
		t.Fatalf("Scores with a malformed snapshot:\n%s\nwant\n%s", got, scanned)
	}
	// Any write to the study makes it stale, even a failed attempt.
	if _, err := s.w.Exec(`UPDATE score_snapshots SET body = ?`, fake.parts[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.PutResponses(ctx, []Response{failure("c1", "x", "baseline", "0", "timeout")}); err != nil {
		t.Fatal(err)
	}
	if got := scoreText(s.mustScores(t, "tiny", "j", testBank).([]model.ScoreRow)); got != scanned {
		t.Fatalf("Scores after a write used a stale snapshot:\n%s\nwant\n%s", got, scanned)
	}
	if err := s.PutResponses(ctx, []Response{answer("c1", "x", "baseline", "0", 2.5)}); err != nil {
		t.Fatal(err)
	}
	want := scoreText(scoresBySQL(t, s, "tiny", "j", testBank))
	if err := s.SnapshotScores(ctx, "tiny", "j", testBank); err != nil {
		t.Fatal(err)
	}
	if n, g := snapshotRows(t, s); n != 1 || g <= gen {
		t.Fatalf("after a new snapshot: %d rows, generation %d (was %d)", n, g, gen)
	}
	if got := scoreText(s.mustScores(t, "tiny", "j", testBank).([]model.ScoreRow)); got != want {
		t.Fatalf("Scores from the new snapshot:\n%s\nwant\n%s", got, want)
	}
	// Replacing the dataset deletes its studies and their snapshots.
	if err := s.PutDataset(ctx, tinyDataset("tiny"), true); err != nil {
		t.Fatal(err)
	}
	if n, _ := snapshotRows(t, s); n != 0 {
		t.Fatalf("%d snapshots outlived their dataset", n)
	}
}

// FuzzDecodeSnapshot: any body decodes or is refused without a panic and
// without touching the rows read so far; what encodeSnapshot writes
// decodes to the same answers.
func FuzzDecodeSnapshot(f *testing.F) {
	w := newSnapshotWriter(nil)
	w.add(&[6]string{"c", "k", "baseline", "0", "0", "3.5"})
	w.add(&[6]string{"c", "k2", "ATTR:+", "1", "0", ""})
	w.add(&[6]string{"c", "k", "ATTR:+", "1", "0", "1e-300"})
	w.close()
	f.Add(w.parts[0])
	f.Add([]byte{1, 0, 0, 0})
	f.Add([]byte{1, 1, 1, 'c', 1, 'k', 1, 0, 0, 0, 1, 0, 0, 1})
	f.Fuzz(func(t *testing.T, body []byte) {
		into := newStudyRows(noPositions())
		into.addAnswer(into.pair("x", "y"), into.cond("p", "w", "r", ""), "1")
		err := decodeSnapshot([][]byte{body}, into, "")
		if err != nil {
			if into.recs.len() != 1 {
				t.Fatalf("a refused body added %d rows", into.recs.len()-1)
			}
			return
		}
		// What decodes, re-encoded, decodes to the same rows.
		again := newSnapshotWriter(nil)
		for _, r := range into.ordered() {
			if r.Score == 0 && math.Signbit(r.Score) {
				return // −0: the answer column holds it as 0, so no writer makes one
			}
			answer := responseAnswer(r.Score)
			if r.Missing {
				answer = ""
			}
			if err := again.add(&[6]string{r.Context, r.Candidate, r.Probe, r.Wording, r.Run, answer}); err != nil {
				t.Fatal(err)
			}
		}
		if err := again.close(); err != nil {
			t.Fatal(err)
		}
		back := newStudyRows(noPositions())
		if err := decodeSnapshot(again.parts, back, ""); err != nil {
			t.Fatalf("re-encoded body refused: %v", err)
		}
		if a, b := scoreText(back.ordered()), scoreText(into.ordered()); a != b {
			t.Fatalf("re-encoded body differs:\n%s\nwant\n%s", a, b)
		}
	})
}

// TestSnapshotParts: a study larger than one part is written in several,
// each naming only the candidates and conditions new to it, and reads back
// as the scan does; a missing part makes the snapshot unusable.
func TestSnapshotParts(t *testing.T) {
	var rows [][6]string
	for i := range 2*snapshotPart + 5 {
		c := fmt.Sprintf("c%d", i/400)
		rows = append(rows, [6]string{c, fmt.Sprintf("k%d", i/40%10), fmt.Sprintf("p%d", i%40), "0", "0", responseAnswer(float64(i%9) / 7)})
	}
	rows[7][5] = "" // no parsed score
	w := newSnapshotWriter(nil)
	want := newStudyRows(noPositions())
	for i := range rows {
		if err := w.add(&rows[i]); err != nil {
			t.Fatal(err)
		}
		if err := want.addAnswer(want.pair(rows[i][0], rows[i][1]), want.cond(rows[i][2], rows[i][3], rows[i][4], "b"), rows[i][5]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	if len(w.parts) != 3 {
		t.Fatalf("%d parts, want 3", len(w.parts))
	}
	got := newStudyRows(noPositions())
	if err := decodeSnapshot(w.parts, got, "b"); err != nil {
		t.Fatal(err)
	}
	if a, b := scoreText(got.ordered()), scoreText(want.ordered()); a != b {
		t.Fatal("parts decode to other rows")
	}
	if err := decodeSnapshot(w.parts[1:], newStudyRows(noPositions()), "b"); err == nil {
		t.Error("parts without the first decoded")
	}
}

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

// TestScanCandidatesEqualsScanFitInput: one decode of a study's snapshot
// (ReadStudy) gives SnapshotAnswers' set and, walked by ScanCandidates
// with the dataset as stored, ScanFitInput's rows and labels exactly,
// each candidate once; after a write to the study ScanCandidates reads
// it again, as ScanFitInput does; and a study that answered candidates
// the dataset lacks is walked in ScanFitInput's order too.
func TestScanCandidatesEqualsScanFitInput(t *testing.T) {
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
		seen := map[[2]string]bool{}
		labels, err := s.ScanCandidates(ctx, "tiny", "j", testBank, r, d, func(c *model.CandidateScores) error {
			key := [2]string{c.Context, c.Candidate}
			if seen[key] || len(c.Cond) == 0 || len(c.Cond) != len(c.Score) {
				t.Fatalf("candidate %v given again or with %d conditions, %d scores", key, len(c.Cond), len(c.Score))
			}
			seen[key] = true
			for i := range c.Cond {
				rows = append(rows, c.Row(i))
			}
			return nil
		})
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
			t.Fatalf("ScanCandidates:\n%s%v\nScanFitInput:\n%s%v", gotRows, gotLabels, wantRows, wantLabels)
		}
	}
	if k, err := s.ReadStudy(ctx, "tiny", "j", testBank, false); err != nil || k.Answers() == nil || k.Holds("tiny", "j", testBank) {
		t.Fatalf("ReadStudy without rows: %v; want answers, no rows held", err)
	}
	// A write after the decode: ScanCandidates reads the study again.
	if err := s.PutResponses(ctx, []Response{answer("c1", "x", "ATTR:+", "0", 4)}); err != nil {
		t.Fatal(err)
	}
	gotRows, gotLabels := scan(r)
	wantRows, wantLabels := want()
	if gotRows != wantRows || !reflect.DeepEqual(gotLabels, wantLabels) {
		t.Fatalf("ScanCandidates after a write:\n%s\nScanFitInput:\n%s", gotRows, wantRows)
	}
	// Answers of candidates the dataset lacks, in a context it has and
	// in one it lacks, snapshotted: walked from the decode in
	// ScanFitInput's order.
	if err := s.PutResponses(ctx, []Response{answer("c9", "z", "baseline", "0", 2), answer("c1", "y", "ATTR:+", "0", 1),
		answer("c1", "y", "baseline", "0", 5), answer("c0", "z", "baseline", "1", 3)}); err != nil {
		t.Fatal(err)
	}
	if l, err = s.AcquireStudy(ctx, "tiny", 0, "j", testBank); err == nil {
		err = l.Release(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	if r, err = s.ReadStudy(ctx, "tiny", "j", testBank, true); err != nil || !r.Holds("tiny", "j", testBank) {
		t.Fatalf("ReadStudy: %v; want the study held", err)
	}
	gotRows, gotLabels = scan(r)
	wantRows, wantLabels = want()
	if !strings.Contains(gotRows, "c9") || gotRows != wantRows || !reflect.DeepEqual(gotLabels, wantLabels) {
		t.Fatalf("ScanCandidates with candidates the dataset lacks:\n%s\nScanFitInput:\n%s", gotRows, wantRows)
	}
}
