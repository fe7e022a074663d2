package store

import (
	"context"
	"errors"
	"testing"

	"github.com/prism-eval/prism/model"
)

// scanned collects what ScanScores yields.
func scanned(t *testing.T, s *Store, dataset, judge, bank string) []model.ScoreRow {
	t.Helper()
	var out []model.ScoreRow
	if err := s.ScanScores(context.Background(), dataset, judge, bank, func(r *model.ScoreRow) error {
		out = append(out, *r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestScanScoresEqualsScores: ScanScores yields exactly Scores' rows, in
// its order and bit for bit, whether they come from the request rows
// (no snapshot, a deleted one, a stale one) or from the snapshot; and an
// error from fn ends the scan.
func TestScanScoresEqualsScores(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	putJudgeJRows(t, s)
	check := func(stage string) {
		t.Helper()
		for _, bank := range []string{testBank, ""} {
			want := scoreText(scoresBySQL(t, s, "tiny", "j", bank))
			got := scoreText(scanned(t, s, "tiny", "j", bank))
			if want == "" || got != want {
				t.Fatalf("%s, bank %q: ScanScores gives\n%s\nScores (SQL) gives\n%s", stage, bank, got, want)
			}
			if rows := scoreText(s.mustScores(t, "tiny", "j", bank).([]model.ScoreRow)); rows != got {
				t.Fatalf("%s, bank %q: ScanScores gives\n%s\nScores gives\n%s", stage, bank, got, rows)
			}
		}
	}
	check("rows, no snapshot")
	if n, _ := snapshotRows(t, s); n != 0 {
		t.Fatalf("%d snapshots before any release", n)
	}
	if err := s.SnapshotScores(ctx, "tiny", "j", testBank); err != nil {
		t.Fatal(err)
	}
	if n, _ := snapshotRows(t, s); n != 1 {
		t.Fatalf("%d snapshots, want 1", n)
	}
	check("snapshot")
	// The snapshot is what both read: a current one that says otherwise
	// wins in both.
	fake := newSnapshotWriter(nil)
	if err := errors.Join(fake.add(&[6]string{"c1", "x", "ATTR:+", "7", "0", "42"}), fake.close()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`UPDATE score_snapshots SET body = ?`, fake.parts[0]); err != nil {
		t.Fatal(err)
	}
	if got, want := scoreText(scanned(t, s, "tiny", "j", testBank)), scoreText(s.mustScores(t, "tiny", "j", testBank).([]model.ScoreRow)); got != want || got != "c1/x ATTR:+ 7 0 false 4045000000000000\n" {
		t.Fatalf("from a faked snapshot: ScanScores gives\n%s\nScores gives\n%s", got, want)
	}
	if _, err := s.w.Exec(`DELETE FROM score_snapshots`); err != nil {
		t.Fatal(err)
	}
	check("snapshot deleted")
	if err := s.SnapshotScores(ctx, "tiny", "j", testBank); err != nil {
		t.Fatal(err)
	}
	if err := s.PutResponses(ctx, []Response{answer("c1", "x", "baseline", "8", 2.5)}); err != nil {
		t.Fatal(err)
	}
	if n, _ := snapshotRows(t, s); n != 1 {
		t.Fatalf("%d snapshots, want the stale one", n)
	}
	check("stale snapshot")

	stop := errors.New("stop")
	calls := 0
	err := s.ScanScores(ctx, "tiny", "j", "", func(*model.ScoreRow) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("fn's error: ScanScores returned %v after %d calls, want stop after 1", err, calls)
	}
	if err := s.ScanScores(ctx, "tiny", "nobody", "", func(*model.ScoreRow) error { return stop }); err != nil {
		t.Fatalf("an unknown judge: %v, want no rows", err)
	}
}
