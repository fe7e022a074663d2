package calib

import (
	"strconv"

	"github.com/prism-eval/prism/model"
)

// budgetCalls counts the judge calls behind the design's score columns:
// the rows (answered or failed) of each candidate under the baseline and
// under each column's probe (every wording and repeat), averaged over the
// design's candidates. Neutral clauses and rubric ratings are controls,
// not columns, and are not counted.
func budgetCalls(rows []model.ScoreRow, d *Design) (base float64, cols []float64) {
	rowOf := make(map[candKey]int, d.Rows())
	for g, c := range d.Contexts {
		for i, cand := range d.Candidates[g] {
			rowOf[candKey{c, cand}] = d.Off[g] + i
		}
	}
	colOf := map[string]int{model.ProbeBaseline: 0}
	for j, c := range d.Columns {
		colOf[c] = j + 1
	}
	counts := make([]float64, d.Q()+1)
	for i := range rows {
		r := &rows[i]
		j, ok := colOf[r.Probe]
		if !ok {
			continue
		}
		if _, ok := rowOf[candKey{r.Context, r.Candidate}]; !ok {
			continue
		}
		counts[j]++
	}
	n := float64(d.Rows())
	for j := range counts {
		counts[j] /= n
	}
	return counts[0], counts[1:]
}

// firstWordings keeps, of every probe, the rows of its first wording
// (the smallest label, numerically when both are integers), or returns
// nil when no probe has two wordings.
func firstWordings(rows []model.ScoreRow) []model.ScoreRow {
	first := map[string]string{}
	several := false
	for i := range rows {
		p, w := rows[i].Probe, rows[i].Wording
		f, ok := first[p]
		switch {
		case !ok:
			first[p] = w
		case f != w:
			several = true
			if wordingLess(w, f) {
				first[p] = w
			}
		}
	}
	if !several {
		return nil
	}
	out := make([]model.ScoreRow, 0, len(rows)/2)
	for _, r := range rows {
		if first[r.Probe] == r.Wording {
			out = append(out, r)
		}
	}
	return out
}

func wordingLess(a, b string) bool {
	x, e1 := strconv.Atoi(a)
	y, e2 := strconv.Atoi(b)
	if e1 == nil && e2 == nil {
		return x < y
	}
	return a < b
}
