package store

import (
	"context"
	"errors"
	"fmt"
	"math"
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
