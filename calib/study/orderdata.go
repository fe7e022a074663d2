package study

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/calib/order"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// OrderStudy names the stored studies the presentation-order diagnostics
// read (docs/diagnostics.md, "Presentation order"): a listwise study and,
// for the references, the pointwise study of the same bank.
type OrderStudy struct {
	Dataset   string
	Batched   string // the listwise study's judge name
	Pointwise string // the pointwise study's judge name ("": none)
	BankHash  string
	// Probes limits the units (nil: every attribute and context probe the
	// listwise study holds).
	Probes []string
}

// FindOrderStudy fills what s leaves empty from the workspace: the only
// batched judge with requests on the dataset, the pointwise judge of the
// same name without "-batched" (when stored), and the only bank the
// batched judge has requests under. Errors say which to choose.
func FindOrderStudy(ctx context.Context, st *store.Store, s OrderStudy) (OrderStudy, error) {
	js, err := st.Judges(ctx)
	if err != nil {
		return s, err
	}
	byName := map[string]store.Judge{}
	var batched []string
	for _, j := range js {
		byName[j.Name] = j
		if _, ok := j.OrderSeed(); ok {
			hs, err := st.StudyHashes(ctx, s.Dataset, j.Name)
			if err != nil {
				return s, err
			}
			if len(hs) > 0 {
				batched = append(batched, j.Name)
			}
		}
	}
	if s.Batched == "" {
		switch len(batched) {
		case 0:
			return s, fmt.Errorf("no listwise study on dataset %q: run prism run --listwise --orders 8 --repeats 2 first", s.Dataset)
		case 1:
			s.Batched = batched[0]
		default:
			return s, fmt.Errorf("dataset %q has %d listwise studies (%s): choose one with --judge", s.Dataset, len(batched), strings.Join(batched, ", "))
		}
	}
	bj, ok := byName[s.Batched]
	if !ok {
		return s, fmt.Errorf("no judge %q in the workspace", s.Batched)
	}
	if _, ok := bj.OrderSeed(); !ok {
		return s, fmt.Errorf("judge %q is not a listwise study's (prism run --listwise stores one)", s.Batched)
	}
	if s.Pointwise == "" {
		if j, ok := byName[strings.TrimSuffix(s.Batched, "-batched")]; ok && s.Batched != j.Name {
			if _, b := j.OrderSeed(); !b {
				s.Pointwise = j.Name
			}
		}
	} else if j, ok := byName[s.Pointwise]; !ok {
		return s, fmt.Errorf("no judge %q in the workspace", s.Pointwise)
	} else if _, b := j.OrderSeed(); b {
		return s, fmt.Errorf("judge %q is a listwise study's, not a pointwise one", s.Pointwise)
	}
	if s.BankHash == "" {
		hs, err := st.StudyHashes(ctx, s.Dataset, s.Batched)
		if err != nil {
			return s, err
		}
		switch len(hs) {
		case 0:
			return s, fmt.Errorf("judge %q has no requests on dataset %q", s.Batched, s.Dataset)
		case 1:
			s.BankHash = hs[0]
		default:
			return s, fmt.Errorf("judge %q has studies of %d banks on dataset %q: choose one with --bank", s.Batched, len(hs), s.Dataset)
		}
	}
	return s, nil
}

// OrderDataOf reads the stored scores of s into the diagnostics' input:
// the listwise study's scores by order and repeat (run labels
// judge.OrderRunLabel; other labels are skipped), the pointwise study's by
// run (decimal labels), each sign's wordings averaged; units are the
// attribute and context probes, ATTR:- oriented by −1. Candidates are in
// dataset order, with their human targets.
func OrderDataOf(ctx context.Context, st *store.Store, d *model.Dataset, s OrderStudy) (*order.Data, error) {
	brows, err := st.Scores(ctx, d.Name, s.Batched, s.BankHash)
	if err != nil {
		return nil, err
	}
	var prows []model.ScoreRow
	if s.Pointwise != "" {
		if prows, err = st.Scores(ctx, d.Name, s.Pointwise, s.BankHash); err != nil {
			return nil, err
		}
	}
	out := &order.Data{}
	unitOf, err := orderUnits(out, brows, s)
	if err != nil {
		return nil, err
	}
	ctxOf := orderContexts(out, d)
	sum := map[orderCell][2]float64{}
	addOrderRows(sum, d, ctxOf, unitOf, brows, false)
	addOrderRows(sum, d, ctxOf, unitOf, prows, true)
	setOrderMeans(out, sum)
	// Positions, from the order plan of the batched judge's seed.
	j, err := st.Judge(ctx, s.Batched)
	if err != nil {
		return nil, err
	}
	if seed, ok := j.OrderSeed(); ok {
		setPositions(out, d, seed)
	}
	return out, nil
}

// orderUnits sets the units of out, the attribute and context probes of
// the batched rows (those of s.Probes when given), sorted by name
// (docs/protocol.md column order) with their signs, and returns each
// probe's unit index.
func orderUnits(out *order.Data, brows []model.ScoreRow, s OrderStudy) (map[string]int, error) {
	want := map[string]bool{}
	for _, p := range s.Probes {
		want[p] = true
	}
	unitOf := map[string]int{}
	var units []string
	var signs []float64
	for _, r := range brows {
		kind, _, sign, err := model.ParseProbe(r.Probe)
		if err != nil || (kind != model.ProbeAttr && kind != model.ProbeContext) {
			continue
		}
		if len(want) > 0 && !want[r.Probe] {
			continue
		}
		if _, ok := unitOf[r.Probe]; !ok {
			unitOf[r.Probe] = -1
			units = append(units, r.Probe)
			sg := 1.0
			if sign == "-" {
				sg = -1
			}
			signs = append(signs, sg)
		}
	}
	for p := range want {
		if _, ok := unitOf[p]; !ok {
			return nil, fmt.Errorf("probes: the listwise study %q holds no scores of probe %q", s.Batched, p)
		}
	}
	// Units sorted by name (docs/protocol.md column order), signs along.
	idx := make([]int, len(units))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(units[a], units[b]) })
	for _, i := range idx {
		unitOf[units[i]] = len(out.Units)
		out.Units = append(out.Units, units[i])
		out.Signs = append(out.Signs, signs[i])
	}
	return unitOf, nil
}

// orderContexts sets the contexts of out, one per dataset context with
// its human scores, and returns each context's index.
func orderContexts(out *order.Data, d *model.Dataset) map[string]int {
	ctxOf := map[string]int{}
	out.Contexts = make([]order.Context, len(d.Contexts))
	for ci, c := range d.Contexts {
		ctxOf[c.ID] = ci
		oc := &out.Contexts[ci]
		oc.ID = c.ID
		oc.Human = make([]float64, len(c.Candidates))
		for i, cand := range c.Candidates {
			oc.Human[i] = cand.Human
		}
		oc.Probe = make([][][][]float64, len(out.Units))
		oc.PointProbe = make([][][]float64, len(out.Units))
	}
	return ctxOf
}

// orderCell is a cell of the order data, for the wording means.
type orderCell struct {
	ctx, unit, k, r, cand int // unit −1: the baseline
	point                 bool
}

// addOrderRows adds the scores of rows (pointwise, or batched by order
// and repeat) to the sums and counts per cell.
func addOrderRows(sum map[orderCell][2]float64, d *model.Dataset, ctxOf, unitOf map[string]int, rows []model.ScoreRow, point bool) {
	for _, r := range rows {
		if !r.Scored() {
			continue
		}
		ci, ok := ctxOf[r.Context]
		if !ok {
			continue
		}
		_, ki := d.Locate(r.Context, r.Candidate)
		if ki < 0 {
			continue
		}
		u := -1
		if r.Probe != model.ProbeBaseline {
			var ok bool
			if u, ok = unitOf[r.Probe]; !ok {
				continue
			}
		}
		var k, rep int
		if point {
			n, err := strconv.Atoi(r.Run)
			if err != nil || n < 0 {
				continue
			}
			rep = n
		} else {
			var ok bool
			if k, rep, ok = judge.ParseOrderRunLabel(r.Run); !ok {
				continue
			}
		}
		key := orderCell{ci, u, k, rep, ki, point}
		v := sum[key]
		sum[key] = [2]float64{v[0] + r.Score, v[1] + 1}
	}
}

// setOrderMeans sets every cell of out to its mean score.
func setOrderMeans(out *order.Data, sum map[orderCell][2]float64) {
	for key, v := range sum {
		oc := &out.Contexts[key.ctx]
		n := len(oc.Human)
		mean := v[0] / v[1]
		if key.point {
			if key.unit < 0 {
				oc.Point = growRuns(oc.Point, key.r, n)
				oc.Point[key.r][key.cand] = mean
			} else {
				oc.PointProbe[key.unit] = growRuns(oc.PointProbe[key.unit], key.r, n)
				oc.PointProbe[key.unit][key.r][key.cand] = mean
			}
			continue
		}
		if key.unit < 0 {
			oc.Base = growOrders(oc.Base, key.k, key.r, n)
			oc.Base[key.k][key.r][key.cand] = mean
		} else {
			oc.Probe[key.unit] = growOrders(oc.Probe[key.unit], key.k, key.r, n)
			oc.Probe[key.unit][key.k][key.r][key.cand] = mean
		}
	}
}

// setPositions sets the candidates' positions in every order of the
// listwise study, from the order plan of its judge's seed.
func setPositions(out *order.Data, d *model.Dataset, seed int64) {
	for ci, c := range d.Contexts {
		oc := &out.Contexts[ci]
		if len(oc.Base) == 0 {
			continue
		}
		ids := make([]string, len(c.Candidates))
		for i, cand := range c.Candidates {
			ids[i] = cand.ID
		}
		plan := judge.NewOrderPlan(seed, c.ID, ids)
		oc.Pos = make([][]int, len(oc.Base))
		for k := range oc.Pos {
			oc.Pos[k] = plan.Positions(k)
		}
	}
}

// growRuns makes v[r] exist, new rows all NaN.
func growRuns(v [][]float64, r, n int) [][]float64 {
	for len(v) <= r {
		row := make([]float64, n)
		for i := range row {
			row[i] = math.NaN()
		}
		v = append(v, row)
	}
	return v
}

// growOrders makes v[k][r] exist.
func growOrders(v [][][]float64, k, r, n int) [][][]float64 {
	for len(v) <= k {
		v = append(v, nil)
	}
	v[k] = growRuns(v[k], r, n)
	return v
}
