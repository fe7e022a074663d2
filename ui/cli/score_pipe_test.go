package cli

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

// pipeCSV is a score CSV of n rows whose row bad (1-based, 0: none) has
// a score that does not parse.
func pipeCSV(n, bad int) string {
	var b strings.Builder
	b.WriteString("context,candidate,probe,score,run\n")
	for i := 1; i <= n; i++ {
		score := fmt.Sprint(i % 10)
		if i == bad {
			score = "x"
		}
		fmt.Fprintf(&b, "c%d,k%d,baseline,%s,%d\n", i/16, i%16, score, i%3)
	}
	return b.String()
}

// scanScoresPiped gives fn the rows ScanScoresCSV gives it, in order,
// across many batches, and returns the first error in file order: fn's
// when it fails before the bad row, the read's otherwise, with fn never
// called past the error.
func TestScanScoresPipedIsScanScoresCSV(t *testing.T) {
	const n = 5*scanBatch + 7
	for _, tc := range []struct{ bad, fail int }{{0, 0}, {0, 1500}, {3000, 1500}, {2500, 0}, {2500, 2600}, {1, 0}, {0, n}} {
		in := pipeCSV(n, tc.bad)
		collect := func(scan func(func(*model.ScoreRow) error) error) ([]model.ScoreRow, error) {
			var rows []model.ScoreRow
			err := scan(func(r *model.ScoreRow) error {
				rows = append(rows, *r)
				if len(rows) == tc.fail {
					return errors.New("fn failed")
				}
				return nil
			})
			return rows, err
		}
		want, wantErr := collect(func(fn func(*model.ScoreRow) error) error {
			return model.ScanScoresCSV(strings.NewReader(in), "s.csv", func(r model.ScoreRow) error { return fn(&r) })
		})
		got, gotErr := collect(func(fn func(*model.ScoreRow) error) error {
			return scanScoresPiped(strings.NewReader(in), "s.csv", fn)
		})
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Errorf("bad row %d, fn fails at %d: %d rows, %v; want %d rows, %v", tc.bad, tc.fail, len(got), gotErr, len(want), wantErr)
		}
		rows := n
		if tc.bad > 0 {
			rows = tc.bad - 1
		}
		if tc.fail > 0 {
			rows = min(rows, tc.fail)
		}
		if (tc.bad > 0 || tc.fail > 0) != (gotErr != nil) || len(want) != rows {
			t.Errorf("bad row %d, fn fails at %d: %d rows, error %v", tc.bad, tc.fail, len(want), gotErr)
		}
	}
}
