package model

import "math"

// CandidateScores is one candidate's score rows at once: row i is under
// condition Conds[Cond[i]] with score Score[i], NaN for a missing score
// (ScoreRow.Missing). A reader of a study's stored answers gives them so
// (store.ScanCandidates): a consumer then looks up a condition once, not once a
// row, and a candidate once, not once a row (calib.Applier.AddCandidate).
// The rows are in the order the row-at-a-time reader gives them.
type CandidateScores struct {
	Context, Candidate string
	Cond               []int32
	Score              []float64
	Conds              []Condition // the reader's table, shared by its calls
}

// Condition is what a score row is asked under, besides its candidate.
type Condition struct {
	Probe, Wording, Run string
}

// Row returns row i as a ScoreRow (Line 0).
func (c *CandidateScores) Row(i int) ScoreRow {
	k := &c.Conds[c.Cond[i]]
	r := ScoreRow{Context: c.Context, Candidate: c.Candidate, Probe: k.Probe, Wording: k.Wording, Run: k.Run, Score: c.Score[i]}
	r.Missing = math.IsNaN(r.Score)
	return r
}
