package calib

import (
	"fmt"
	"math"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"
	"github.com/prism-eval/prism/model"
)

// TestAddCandidateIsAdd: AddCandidate folds what Add folds of each row,
// bit for bit, whatever the condition numbers: one a condition, one a
// probe, or numbers whose conditions change between candidates (a table
// rewritten in place); and it reports Add's errors.
func TestAddCandidateIsAdd(t *testing.T) {
	rows, labels := calibtest.Synth(20, 5, 3, 7)
	rows = append(rows, model.ScoreRow{Context: rows[0].Context, Candidate: rows[0].Candidate, Probe: "neutral:n", Score: 3}) // a probe no column reads
	rows[3].Score, rows[3].Missing = math.NaN(), true
	opts := DefaultOptions()
	opts.Bootstrap = 10
	d, rep := fitForCalibrator(t, rows, labels, opts)
	c := newCal(t, d, rep, opts, PRISM)
	want, err := c.Apply(rows, labels, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		key  func(r *model.ScoreRow) model.Condition
	}{
		{"one a condition", func(r *model.ScoreRow) model.Condition {
			return model.Condition{Probe: r.Probe, Wording: r.Wording, Run: r.Run}
		}},
		{"one a probe", func(r *model.ScoreRow) model.Condition { return model.Condition{Probe: r.Probe} }},
		{"renumbered a candidate", nil},
	} {
		a, err := c.NewApplier(ApplyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := eachCandidate(rows, tc.key, a.AddCandidate); err != nil {
			t.Fatal(err)
		}
		got, err := a.Finish(labels)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := scoredText(got), scoredText(want); g != w {
			t.Errorf("%s: AddCandidate gives\n%s\nAdd\n%s", tc.name, g, w)
		}
	}
	for _, bad := range []model.ScoreRow{
		{Context: "c", Candidate: "k", Probe: "not a probe", Score: 1},
		{Context: "", Candidate: "k", Probe: "baseline", Score: 1},
		{Context: "c", Candidate: "k", Probe: "baseline", Score: math.Inf(1)},
	} {
		a, _ := c.NewApplier(ApplyOptions{ScoresFile: "s.csv"})
		b, _ := c.NewApplier(ApplyOptions{ScoresFile: "s.csv"})
		if err, werr := eachCandidate([]model.ScoreRow{bad}, nil, a.AddCandidate), b.Add(&bad); err == nil || err.Error() != werr.Error() {
			t.Errorf("AddCandidate's error %v, Add's %v", err, werr)
		}
	}
}

// eachCandidate gives fn the rows a candidate at a time, as a reader
// gives them to AddCandidate: conditions numbered by key as first seen
// in one growing table, or (key nil) each candidate's from 0 in one
// table rewritten in place.
func eachCandidate(rows []model.ScoreRow, key func(*model.ScoreRow) model.Condition, fn func(*model.CandidateScores) error) error {
	num := map[model.Condition]int32{}
	cs := &model.CandidateScores{}
	for i := 0; i < len(rows); {
		cs.Context, cs.Candidate, cs.Cond, cs.Score = rows[i].Context, rows[i].Candidate, cs.Cond[:0], cs.Score[:0]
		if key == nil {
			cs.Conds = cs.Conds[:0]
		}
		for ; i < len(rows) && rows[i].Context == cs.Context && rows[i].Candidate == cs.Candidate; i++ {
			r := &rows[i]
			n := int32(len(cs.Conds))
			if key == nil {
				cs.Conds = append(cs.Conds, model.Condition{Probe: r.Probe, Wording: r.Wording, Run: r.Run})
			} else if k, ok := num[key(r)]; ok {
				n = k
			} else {
				num[key(r)] = n
				cs.Conds = append(cs.Conds, key(r))
			}
			score := r.Score
			if r.Missing {
				score = math.NaN()
			}
			cs.Cond, cs.Score = append(cs.Cond, n), append(cs.Score, score)
		}
		if err := fn(cs); err != nil {
			return err
		}
	}
	return nil
}

// scoredText prints s whole, its transfer check too (%v: a NaN, such as
// an unlabelled candidate's human score, prints equal to another).
func scoredText(s *Scored) string {
	c := *s
	c.Transfer = nil
	return fmt.Sprintf("%+v\n%+v", c, s.Transfer)
}
