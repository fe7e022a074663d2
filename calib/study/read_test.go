package study

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/prism-eval/prism/model"
)

// TestScanCandidatesIsScan: ScanCandidates gives Scan's rows a candidate
// at a time, with its Study and labels, whether it walks a decode of the
// study or reads it, for runs that keep every answer and runs that keep
// some of a candidate's (the planned run of a study a screen ran twice).
func TestScanCandidatesIsScan(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t, tinyDataset("tiny"))
	runSpec(t, st, bankSpec(t, "quality", 1, ""), 0, 0)
	runSpec(t, st, bankSpec(t, "quality", 2, "screen"), 0, 0)
	info, _, err := Pick(ctx, st, "tiny", "offline", "")
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := st.DatasetAt(ctx, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	read, err := st.ReadStudy(ctx, "tiny", "offline", info.BankHash, true)
	if err != nil || !read.Holds("tiny", "offline", info.BankHash) {
		t.Fatalf("ReadStudy: %v; want the study held", err)
	}
	for _, runs := range []Runs{{}, {All: true}, {N: 2}} {
		var want []model.ScoreRow
		ws, wl, err := Scan(ctx, st, info, runs, nil, func(r *model.ScoreRow) error { want = append(want, *r); return nil })
		if err != nil {
			t.Fatal(err)
		}
		for _, from := range []string{"decode", "tables"} {
			r := read
			if from == "tables" {
				r = nil
			}
			var got []model.ScoreRow
			gs, gl, err := ScanCandidates(ctx, st, info, runs, r, d, func(c *model.CandidateScores) error {
				for i := range c.Cond {
					got = append(got, c.Row(i))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) || !reflect.DeepEqual(gs, ws) || !reflect.DeepEqual(gl, wl) {
				t.Errorf("runs %s, from the %s: %d rows, study %+v; Scan: %d rows, study %+v", runs, from, len(got), gs, len(want), ws)
			}
		}
	}
}
