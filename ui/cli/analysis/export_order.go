package analysis

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
)

// writeListwiseScoresCSV writes a listwise study's scores (docs/datasets.md,
// "Exported scores"): the columns of model.WriteScoresCSV, then order,
// repeat and position, read from each row's run label (o<k>, o<k>r<r>)
// and the order plan of its context under seed (judge.NewOrderPlan):
// position is the 1-based label the judge saw the candidate under. A row
// whose run label is not an order's, or whose candidate the dataset does
// not hold, has those three cells empty.
func writeListwiseScoresCSV(w io.Writer, rows []model.ScoreRow, d *model.Dataset, seed int64) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"context", "candidate", "probe", "score", "run", "wording", "order", "repeat", "position"}); err != nil {
		return err
	}
	plans := map[string]judge.OrderPlan{}
	positions := map[[2]int][]int{} // (context index, order) → positions
	rec := make([]string, 9)
	for _, r := range rows {
		score := ""
		if !r.Missing {
			score = strconv.FormatFloat(r.Score, 'g', -1, 64)
		}
		rec[0], rec[1], rec[2], rec[3], rec[4], rec[5] = r.Context, r.Candidate, r.Probe, score, r.Run, r.Wording
		rec[6], rec[7], rec[8] = "", "", ""
		ci, ki := d.Locate(r.Context, r.Candidate)
		if k, rep, ok := judge.ParseOrderRunLabel(r.Run); ok && ci >= 0 && ki >= 0 {
			c := &d.Contexts[ci]
			p, ok := plans[c.ID]
			if !ok {
				ids := make([]string, len(c.Candidates))
				for i, cand := range c.Candidates {
					ids[i] = cand.ID
				}
				p = judge.NewOrderPlan(seed, c.ID, ids)
				plans[c.ID] = p
			}
			pos, ok := positions[[2]int{ci, k}]
			if !ok {
				pos = p.Positions(k)
				positions[[2]int{ci, k}] = pos
			}
			rec[6], rec[7], rec[8] = strconv.Itoa(k), strconv.Itoa(rep), strconv.Itoa(pos[ki]+1)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
