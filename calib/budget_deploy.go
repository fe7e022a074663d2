package calib

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/prism-eval/prism/model"
)

// AttachPolicy learns the adaptive policy of docs/protocol.md §16 for a
// prism (α = 1) within-context calibrator from its training scores and
// labels (the rows it was fitted on) and sets c.Policy with threshold
// tau: the calibrator's β orders the columns by |β_c|·RMS(J̃_c) over its
// training candidates, and the imputation regressions and residual
// spreads are fitted on them. Only the calibrator's training contexts
// are used. The checksum is recomputed when the calibrator is marshalled.
func (c *Calibrator) AttachPolicy(rows []model.ScoreRow, labels []model.Label, tau float64, opts BuildOptions) error {
	if c.Method != PRISM.String() || c.Centering != CenterWithinContext {
		return fmt.Errorf("a budget policy needs a prism calibrator centered within contexts (this one: method %s, centering %s)", c.Method, c.Centering)
	}
	if !(tau >= 0) || math.IsInf(tau, 0) {
		return fmt.Errorf("τ %v: want a finite value ≥ 0", tau)
	}
	// The calibrator's own conditions only (a calibrator fitted on some
	// attributes of a bank is given the bank's scores).
	keep := map[string]bool{}
	for _, col := range c.ScoreColumns {
		keep[col] = true
	}
	own := make([]model.ScoreRow, 0, len(rows))
	for _, r := range rows {
		if keep[r.Probe] {
			own = append(own, r)
		}
	}
	rows = own
	d, _, err := BuildDesign(rows, labels, opts)
	if err != nil {
		return err
	}
	if !slices.Equal(d.Columns, c.Columns) {
		return fmt.Errorf("the scores have columns %v, the calibrator %v: give the scores it was fitted on", d.Columns, c.Columns)
	}
	var train []int
	for g, ctx := range d.Contexts {
		if _, ok := c.Training.IDs[ctx]; ok {
			train = append(train, g)
		}
	}
	if len(train) == 0 {
		return errors.New("none of the scores' contexts is a training context of the calibrator: give the scores it was fitted on")
	}
	q := d.Q()
	sd := make([]float64, q)
	rowsN := 0
	for _, g := range train {
		for i := d.Off[g]; i < d.Off[g+1]; i++ {
			for j := 0; j < q; j++ {
				x := d.JC[i*q+j]
				sd[j] += x * x
			}
			rowsN++
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j] / float64(rowsN))
	}
	base, calls := budgetCalls(rows, d)
	p, err := newPolicyTrainer(d).learn(train, c.Beta, sd, calls, base)
	if err != nil {
		return err
	}
	p.Tau = tau
	c.Policy = p
	return nil
}

// check validates a policy read from a calibrator file against it.
func (p *Policy) check(c *Calibrator, bad func(field, format string, args ...any) error) error {
	q := len(c.Columns)
	if c.Method != PRISM.String() || c.Centering != CenterWithinContext {
		return bad("policy", "a policy needs method prism and within_context centering")
	}
	if len(p.Columns) != q || len(p.Calls) != q || len(p.Beta) != q || len(p.Means) != q {
		return bad("policy", "%d columns, %d calls, %d β, %d means; the calibrator has %d columns", len(p.Columns), len(p.Calls), len(p.Beta), len(p.Means), q)
	}
	if !slices.Equal(slices.Sorted(slices.Values(p.Columns)), slices.Sorted(slices.Values(c.Columns))) {
		return bad("policy.columns", "%v is not an order of the calibrator's columns", p.Columns)
	}
	colOf := map[string]int{}
	for j, col := range c.Columns {
		colOf[col] = j
	}
	for k, col := range p.Columns {
		if p.Beta[k] != c.Beta[colOf[col]] {
			return bad("policy.beta", "β of %s is %v, the calibrator's %v", col, p.Beta[k], c.Beta[colOf[col]])
		}
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	for k := range p.Calls {
		if !(p.Calls[k] > 0) || !finite(p.Calls[k]) || !finite(p.Means[k]) {
			return bad("policy", "column %s: calls %v, mean %v: want calls > 0 and finite numbers", p.Columns[k], p.Calls[k], p.Means[k])
		}
	}
	if !(p.BaseCalls > 0) || !finite(p.BaseCalls) {
		return bad("policy.base_calls", "%v: want a finite number > 0", p.BaseCalls)
	}
	if !(p.Tau >= 0) || !finite(p.Tau) {
		return bad("policy.tau", "%v: want a finite number ≥ 0", p.Tau)
	}
	if len(p.Stages) != q+1 {
		return bad("policy.stages", "%d stages for %d columns, want %d", len(p.Stages), q, q+1)
	}
	for m, st := range p.Stages {
		if len(st.W) != 3+m || len(st.Impute) != q-m && m < q || m == q && len(st.Impute) != 0 {
			return bad("policy.stages", "stage %d: %d coefficients and %d imputations, want %d and %d", m, len(st.W), len(st.Impute), 3+m, q-m)
		}
		if !(st.Sigma >= 0) || !finite(st.Sigma) || slices.ContainsFunc(st.W, func(x float64) bool { return !finite(x) }) {
			return bad("policy.stages", "stage %d: a coefficient or σ is not a finite number (σ must be ≥ 0)", m)
		}
		for _, im := range st.Impute {
			if len(im) != 3+m || slices.ContainsFunc(im, func(x float64) bool { return !finite(x) }) {
				return bad("policy.stages", "stage %d: an imputation has %d coefficients (want %d) or a number that is not finite", m, len(im), 3+m)
			}
		}
	}
	return nil
}
