package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/prism-eval/prism/model"
)

// scanAll collects what scan gives, in order, copying the strings.
func scanAll(t *testing.T, s *Store, st studyRef, parallel bool) [][6]string {
	t.Helper()
	var out [][6]string
	err := s.tx(context.Background(), func(tx *sql.Tx) error {
		add := func(row *[6]string) error {
			var c [6]string
			for i, v := range row {
				c[i] = string([]byte(v))
			}
			out = append(out, c)
			return nil
		}
		if parallel {
			return scanStudyRowsParallel(context.Background(), s.r, tx, st, add)
		}
		return scanStudyRows(context.Background(), tx, st, add)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestParallelScanReadsAsSerial: a scan whose chunks are read on two
// connections at once gives the rows one connection reading them in turn
// gives, in the same order, over chunks of answers, failures, missing
// scores and a wording holding the \x01 that separates the packed
// columns (its chunk is read again row by row); the snapshot written from
// it reads back as the rows themselves.
func TestParallelScanReadsAsSerial(t *testing.T) {
	defer func(from, n int64) { scanParallelFrom, parallelChunk = from, n }(scanParallelFrom, parallelChunk)
	scanParallelFrom = 4096
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	var rs []Response
	for i := range 5000 {
		c, k := fmt.Sprintf("c%d", i/100), fmt.Sprintf("k%d", i/10%10)
		probe, run := fmt.Sprintf("p%d", i%10), "0"
		var r Response
		switch {
		case i%17 == 0:
			r = failure(c, k, probe, run, "network")
		default:
			r = answer(c, k, probe, run, float64(i%9)/7)
			if i%23 == 0 {
				r.Score = math.NaN()
			}
		}
		r.Key = keyOf(c, k, probe)
		if i == 3333 {
			r.Wording = "w\x01"
		}
		rs = append(rs, r)
	}
	if err := s.PutResponses(ctx, rs); err != nil {
		t.Fatal(err)
	}
	studies, err := studiesOf(ctx, s.r, "j", "tiny", testBank, false)
	if err != nil || len(studies) != 1 {
		t.Fatalf("studies %v, err %v", studies, err)
	}
	st := studies[0]
	if span := st.hi - st.lo + 1; span < scanParallelFrom {
		t.Fatalf("the study spans %d ids, too few to be read in parallel", span)
	}
	want := scanAll(t, s, st, false)
	if n := 5000 - (5000+16)/17; len(want) != n {
		t.Fatalf("serial scan: %d rows, want %d answers", len(want), n)
	}
	for _, chunk := range []int64{compactChunk, 1000, 333} {
		parallelChunk = chunk
		if got := scanAll(t, s, st, true); !slices.Equal(got, want) {
			t.Errorf("chunks of %d: the parallel scan gives %d rows, not the serial scan's %d in its order", chunk, len(got), len(want))
		}
	}

	parallelChunk = 333
	if err := s.SnapshotScores(ctx, "tiny", "j", testBank); err != nil {
		t.Fatal(err)
	}
	if n, _ := snapshotRows(t, s); n == 0 {
		t.Fatal("no snapshot written")
	}
	if got, want := scoreText(s.mustScores(t, "tiny", "j", testBank).([]model.ScoreRow)), scoreText(scoresBySQL(t, s, "tiny", "j", testBank)); got != want {
		t.Error("Scores from the snapshot differ from the joined tables")
	}
}
