package calib

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/prism-eval/prism/model"
)

// Policy is an adaptive probing policy (docs/protocol.md §16): the order
// in which a candidate's probe columns are requested, the regression that
// fills the columns not (yet) asked, the residual spread that says how far
// the unasked columns could still move the candidate, and the stopping
// threshold. Every number in it is learned on training contexts only.
//
// A candidate's corrected score under PRISM (α = 1) ranks, within its
// context, as e = s0 − c with c = Σ_j J_j β_j (the context's mean of c
// is common to all its candidates, so centering changes no rank). After
// the baseline and the first m columns of Order, c is estimated by
//
//	ĉ_m = w_m · x_m,  x_m = (1, s0, s̄0, J_Order[0], …, J_Order[m−1])
//
// with s̄0 the mean baseline score of the candidate's context and w_m
// the least-squares coefficients of c on x_m over the training
// candidates: the conditional expectation of the full correction given
// what was asked (by linearity of least squares, the same as filling
// every unasked column with its own regression on x_m and applying β).
// ĉ_q = c exactly. Sigma[m] is the residual standard deviation of c − ĉ_m
// centered within context on the training candidates.
type Policy struct {
	// Columns are the design's columns in asking order.
	Columns []string `json:"columns"`
	// Calls[k] is the judge calls one candidate spends on Columns[k]
	// (its wordings × repeats); BaseCalls the baseline's.
	Calls     []float64 `json:"calls"`
	BaseCalls float64   `json:"base_calls"`
	// Beta[k] is PRISM's coefficient of Columns[k].
	Beta []float64 `json:"beta"`
	// Means[k] is the training mean of Columns[k]: what a failed call is
	// replaced by (docs/protocol.md §2, column means).
	Means []float64 `json:"means"`
	// Stages[m] holds w_m (3 + m coefficients) and Sigma for m asked
	// columns, m = 0 … len(Columns).
	Stages []PolicyStage `json:"stages"`
	order  []int         // Columns as design column indices (set by learn)

	// Tau is the stopping threshold τ: a candidate stops when the expected
	// number of other candidates of its context whose order against it
	// the unasked columns would flip is at most τ.
	Tau float64 `json:"tau"`
}

// PolicyStage is the imputation after m asked columns: Impute[r] holds
// the least-squares coefficients over x_m of the unasked column
// Columns[m+r] on the training candidates (its conditional expectation
// given x_m); W = Σ_r β_(m+r) Impute[r] plus β on the asked columns is the
// estimate ĉ_m = W · x_m; Sigma the residual spread of c − ĉ_m.
type PolicyStage struct {
	W      []float64   `json:"w"`
	Impute [][]float64 `json:"impute,omitempty"`
	Sigma  float64     `json:"sigma"`
}

// PolicyTrainer learns policies on the training contexts of one design.
type PolicyTrainer struct {
	d    *Design
	sbar []float64 // per row, its context's mean s0
}

// NewPolicyTrainer prepares the learning of policies on d.
func NewPolicyTrainer(d *Design) *PolicyTrainer {
	t := &PolicyTrainer{d: d, sbar: make([]float64, d.Rows())}
	for g := range d.Contexts {
		lo, hi := d.Off[g], d.Off[g+1]
		var s float64
		for i := lo; i < hi; i++ {
			s += d.S0[i]
		}
		s /= float64(hi - lo)
		for i := lo; i < hi; i++ {
			t.sbar[i] = s
		}
	}
	return t
}

// Learn fits a policy on the training contexts train from PRISM's β
// (design column order), the columns' spreads sd (the RMS of J̃ on the
// training rows) and per-column call costs.
func (t *PolicyTrainer) Learn(train []int, beta, sd, calls []float64, baseCalls float64) (*Policy, error) {
	d := t.d
	q := d.Q()
	order := ImportanceOrder(beta, sd)
	p := &Policy{BaseCalls: baseCalls, order: order}
	for _, c := range order {
		p.Columns = append(p.Columns, d.Columns[c])
		p.Calls = append(p.Calls, calls[c])
		p.Beta = append(p.Beta, beta[c])
	}
	// z = (1, s0, s̄0, J in order, c): one Gram over the training rows; the
	// system of stage m is its leading (3+m)-block.
	n := q + 4
	M := make([]float64, n*n)
	z := make([]float64, n)
	p.Means = make([]float64, q)
	rows := 0
	for _, g := range train {
		for i := d.Off[g]; i < d.Off[g+1]; i++ {
			t.features(i, order, beta, z)
			for a := 0; a < n; a++ {
				for b := a; b < n; b++ {
					M[a*n+b] += z[a] * z[b]
				}
			}
			for k := range order {
				p.Means[k] += z[3+k]
			}
			rows++
		}
	}
	if rows == 0 {
		return nil, errors.New("calib: budget policy: no training candidates")
	}
	for k := range p.Means {
		p.Means[k] /= float64(rows)
	}
	for a := 0; a < n; a++ {
		for b := 0; b < a; b++ {
			M[a*n+b] = M[b*n+a]
		}
	}
	resid := make([]float64, 0, 64)
	for m := 0; m <= q; m++ {
		st := PolicyStage{W: make([]float64, 3+m)}
		if m == q {
			copy(st.W[3:], p.Beta)
			p.Stages = append(p.Stages, st)
			continue
		}
		k := 3 + m
		// A vanishing ridge keeps a column that is constant on the
		// training rows (integer scores) from making the system singular.
		var tr float64
		for i := 0; i < k; i++ {
			tr += M[i*n+i]
		}
		a := make([]float64, k*k)
		for r := m; r < q; r++ { // each unasked column on x_m
			for i := 0; i < k; i++ {
				copy(a[i*k:(i+1)*k], M[i*n:i*n+k])
				a[i*k+i] += 1e-10 * tr / float64(k)
			}
			coef := make([]float64, k)
			for i := 0; i < k; i++ {
				coef[i] = M[i*n+3+r]
			}
			if !cholSolve(a, coef, k) {
				return nil, fmt.Errorf("calib: budget policy: the imputation system after %d columns is singular", m)
			}
			st.Impute = append(st.Impute, coef)
		}
		// w_m: β on the asked columns, Σ_r β_r (imputation of r) on x_m.
		for j := 0; j < m; j++ {
			st.W[3+j] = p.Beta[j]
		}
		for r := m; r < q; r++ {
			for i, c := range st.Impute[r-m] {
				st.W[i] += p.Beta[r] * c
			}
		}
		// Residual spread of c − ĉ_m within context.
		var ss float64
		var dof int
		for _, g := range train {
			resid = resid[:0]
			var mean float64
			for i := d.Off[g]; i < d.Off[g+1]; i++ {
				t.features(i, order, beta, z)
				r := z[n-1] - dot(st.W, z[:k])
				resid = append(resid, r)
				mean += r
			}
			mean /= float64(len(resid))
			for _, r := range resid {
				ss += (r - mean) * (r - mean)
			}
			dof += len(resid) - 1
		}
		if dof > 0 {
			st.Sigma = math.Sqrt(ss / float64(dof))
		}
		p.Stages = append(p.Stages, st)
	}
	return p, nil
}

// features sets z = (1, s0, s̄0, J in order, c = Σ J β) for row i.
func (t *PolicyTrainer) features(i int, order []int, beta, z []float64) {
	d := t.d
	q := d.Q()
	j := d.J[i*q : (i+1)*q]
	z[0], z[1], z[2] = 1, d.S0[i], t.sbar[i]
	var c float64
	for k, col := range order {
		z[3+k] = j[col]
	}
	for col, b := range beta {
		c += j[col] * b
	}
	z[len(z)-1] = c
}

func dot(a, b []float64) float64 {
	var s float64
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// ImportanceOrder orders columns by |β_c|·sd_c, largest first; exact ties
// keep design order.
func ImportanceOrder(beta, sd []float64) []int {
	imp := make([]float64, len(beta))
	for c := range imp {
		imp[c] = math.Abs(beta[c]) * sd[c]
	}
	return LargestFirst(imp)
}

// LargestFirst returns the indices of imp ordered by imp, largest first;
// exact ties (and NaN, which compares neither way) keep index order.
func LargestFirst(imp []float64) []int {
	order := make([]int, len(imp))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case imp[a] > imp[b]:
			return -1
		case imp[a] < imp[b]:
			return 1
		}
		return 0
	})
	return order
}

// PolicyRun follows a policy on the candidates of one context, stage by
// stage: Next names the candidates that ask the next column, Give hands
// their answers back, Scores returns the estimates e = s0 − ĉ. Stages are
// synchronous: every decision of a stage uses the estimates after the
// same number of asked columns.
type PolicyRun struct {
	p      *Policy
	cap    float64 // calls per candidate; ≤ 0: no cap
	s0     []float64
	sbar   float64
	vals   [][]float64 // per candidate, the asked columns' values
	done   []bool
	e, sig []float64 // per candidate, the current estimate and its spread
	stage  int       // columns asked by the candidates still active
	calls  []float64
}

// Start begins a run on one context's baseline scores s0. budget caps a
// candidate's calls (baseline included); 0 means no cap.
func (p *Policy) Start(s0 []float64, budget float64) *PolicyRun {
	n := len(s0)
	r := &PolicyRun{p: p, cap: budget, s0: slices.Clone(s0), vals: make([][]float64, n), done: make([]bool, n),
		e: make([]float64, n), sig: make([]float64, n), calls: make([]float64, n)}
	for _, s := range s0 {
		r.sbar += s
	}
	if n > 0 {
		r.sbar /= float64(n)
	}
	for i := range r.calls {
		r.calls[i] = p.BaseCalls
		r.estimate(i)
	}
	return r
}

// estimate sets candidate i's estimate from its asked columns.
func (r *PolicyRun) estimate(i int) {
	m := len(r.vals[i])
	st := r.p.Stages[m]
	c := st.W[0] + st.W[1]*r.s0[i] + st.W[2]*r.sbar
	for k, v := range r.vals[i] {
		c += st.W[3+k] * v
	}
	r.e[i], r.sig[i] = r.s0[i]-c, st.Sigma
}

// risk is the expected number of candidates j of the context whose order
// against i the unasked columns would flip: Σ_j Φ(−|e_i − e_j| / sqrt(σ_i² + σ_j²)).
func (r *PolicyRun) risk(i int) float64 {
	var s float64
	for j := range r.e {
		if j == i {
			continue
		}
		sd := math.Sqrt(r.sig[i]*r.sig[i] + r.sig[j]*r.sig[j])
		if sd == 0 {
			continue
		}
		s += 0.5 * math.Erfc(math.Abs(r.e[i]-r.e[j])/(sd*math.Sqrt2))
	}
	return s
}

// Next decides who stops at the current stage and returns the column
// index (into Policy.Columns) the others ask next and who they are;
// ok is false when every candidate has stopped.
func (r *PolicyRun) Next() (col int, who []int, ok bool) {
	q := len(r.p.Columns)
	if r.stage >= q {
		return 0, nil, false
	}
	stop := make([]bool, len(r.e))
	for i := range r.e {
		if r.done[i] {
			continue
		}
		over := r.cap > 0 && r.calls[i]+r.p.Calls[r.stage] > r.cap
		stop[i] = over || r.risk(i) <= r.p.Tau
	}
	for i := range r.e {
		if !r.done[i] && stop[i] {
			r.done[i] = true
		}
		if !r.done[i] {
			who = append(who, i)
		}
	}
	if len(who) == 0 {
		r.stage = q
		return 0, nil, false
	}
	return r.stage, who, true
}

// Give records the answers of the candidates Next returned, in the same
// order; a NaN answer (a failed call) is replaced by the column's training
// mean. It advances to the next stage.
func (r *PolicyRun) Give(who []int, v []float64) {
	fill := r.p.Means[r.stage]
	for k, i := range who {
		x := v[k]
		if math.IsNaN(x) {
			x = fill
		}
		r.vals[i] = append(r.vals[i], x)
		r.calls[i] += r.p.Calls[r.stage]
		r.estimate(i)
	}
	r.stage++
	if r.stage == len(r.p.Columns) {
		for i := range r.done {
			r.done[i] = true
		}
	}
}

// Scores returns the estimates e = s0 − ĉ (ranked within the context like
// PRISM's corrected scores) and each candidate's calls.
func (r *PolicyRun) Scores() (e, calls []float64) { return r.e, r.calls }

// Filled returns candidate i's columns in Policy.Columns order: the
// asked ones' answers, the others filled with their conditional
// expectation given what i asked (PolicyStage.Impute).
func (r *PolicyRun) Filled(i int) []float64 {
	m := len(r.vals[i])
	out := append(make([]float64, 0, len(r.p.Columns)), r.vals[i]...)
	st := r.p.Stages[m]
	for _, coef := range st.Impute {
		v := coef[0] + coef[1]*r.s0[i] + coef[2]*r.sbar
		for k, x := range r.vals[i] {
			v += coef[3+k] * x
		}
		out = append(out, v)
	}
	return out
}

// Asked returns how many columns candidate i asked.
func (r *PolicyRun) Asked(i int) int { return len(r.vals[i]) }

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

// ColumnOrder is Columns as design column indices (set when learned;
// nil for a policy read from a file).
func (p *Policy) ColumnOrder() []int { return p.order }

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
	base, calls := PolicyCalls(rows, d)
	p, err := NewPolicyTrainer(d).Learn(train, c.Beta, sd, calls, base)
	if err != nil {
		return err
	}
	p.Tau = tau
	c.Policy = p
	return nil
}

// PolicyCalls counts the judge calls behind the design's score columns:
// the rows (answered or failed) of each candidate under the baseline and
// under each column's probe (every wording and repeat), averaged over the
// design's candidates. Neutral clauses and rubric ratings are controls,
// not columns, and are not counted.
func PolicyCalls(rows []model.ScoreRow, d *Design) (base float64, cols []float64) {
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
