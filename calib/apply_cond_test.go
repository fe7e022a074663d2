package calib

import (
	"fmt"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"
	"github.com/prism-eval/prism/model"
)

// TestAddCondIsAdd: AddCond folds what Add folds, bit for bit, whatever
// numbers it is given: one a probe (as store.ScanRead gives them), one
// shared by every probe, none (−1), or numbers that change their probe
// part-way; and it reports Add's errors.
func TestAddCondIsAdd(t *testing.T) {
	rows, labels := calibtest.Synth(20, 5, 3, 7)
	rows = append(rows, model.ScoreRow{Context: rows[0].Context, Candidate: rows[0].Candidate, Probe: "neutral:n", Score: 3}) // a probe no column reads
	opts := DefaultOptions()
	opts.Bootstrap = 10
	d, rep := fitForCalibrator(t, rows, labels, opts)
	c := newCal(t, d, rep, opts, PRISM)
	want, err := c.Apply(rows, labels, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	probeNum := map[string]int32{}
	for _, tc := range []struct {
		name string
		num  func(i int, r *model.ScoreRow) int32
	}{
		{"one a probe", func(_ int, r *model.ScoreRow) int32 {
			n, ok := probeNum[r.Probe]
			if !ok {
				n = int32(len(probeNum))
				probeNum[r.Probe] = n
			}
			return n
		}},
		{"one for all", func(int, *model.ScoreRow) int32 { return 0 }},
		{"none", func(int, *model.ScoreRow) int32 { return -1 }},
		{"renumbered half-way", func(i int, r *model.ScoreRow) int32 {
			if i < len(rows)/2 {
				return int32(len(r.Probe))
			}
			return int32(r.Probe[0])
		}},
	} {
		a, err := c.NewApplier(ApplyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			if err := a.AddCond(tc.num(i, &rows[i]), &rows[i]); err != nil {
				t.Fatal(err)
			}
		}
		got, err := a.Finish(labels)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := scoredText(got), scoredText(want); g != w {
			t.Errorf("%s: AddCond gives\n%s\nAdd\n%s", tc.name, g, w)
		}
	}
	a, _ := c.NewApplier(ApplyOptions{ScoresFile: "s.csv"})
	bad := model.ScoreRow{Context: "c", Candidate: "k", Probe: "not a probe", Score: 1, Line: 9}
	if err, werr := a.AddCond(0, &bad), a.Add(&bad); err == nil || err.Error() != werr.Error() {
		t.Errorf("AddCond's error %v, Add's %v", err, werr)
	}
}

// scoredText prints s whole, its transfer check too (%v: a NaN, such as
// an unlabelled candidate's human score, prints equal to another).
func scoredText(s *Scored) string {
	c := *s
	c.Transfer = nil
	return fmt.Sprintf("%+v\n%+v", c, s.Transfer)
}
