package calib

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/prism-eval/prism/calib/forest"
)

// The kinds of rubric baseline (docs/protocol.md §12).
const (
	BaselineForest = "forest" // random-forest head on the criterion ratings (SAJA; the default)
	BaselineRidge  = "ridge"  // ridge head on the criterion ratings, γ by the inner CV
	BaselineGEval  = "geval"  // no head: the mean of the criteria mapped to [0, 1]
)

// Baseline is one rubric-based method scored beside Vanilla and PRISM on
// the same outer folds and bootstrap draws (docs/protocol.md §12). It does
// not depend on how the scores were acquired or stored: Scores holds, per
// candidate, one value per criterion.
type Baseline struct {
	Name     string   // the report key, e.g. "saja_broad", "saja_granular", "geval"; not a method name
	Kind     string   // BaselineForest (when empty), BaselineRidge or BaselineGEval
	Criteria []string // the criteria, in feature order
	// Scales gives each criterion's scale [min, max] (min < max). Required
	// for G-Eval (it maps scores to [0, 1]); optional for the heads. When
	// set, a value outside its scale is a missing cell.
	Scales [][2]float64
	// Scores maps (context, candidate) to one value per criterion, in
	// Criteria order; NaN (or ±Inf) is a missing cell. A candidate of the
	// fit without an entry has every cell missing.
	Scores map[[2]string][]float64
	// Forest configures the forest head; Trees == 0 means
	// forest.DefaultOptions() (300 trees, seed 42, scikit-learn's defaults).
	Forest forest.Options
	// CallsPerCandidate and TokensPerCandidate are copied to the result as
	// given: the caller's budget of the method, shown beside its row.
	CallsPerCandidate, TokensPerCandidate float64
}

// BaselineResult is a rubric baseline's out-of-fold score
// (docs/protocol.md §12). The embedded MethodResult is computed exactly
// as a fitted method's: the same within-context metric, the same
// bootstrap draws, DiffVsVanilla paired with Vanilla.
type BaselineResult struct {
	MethodResult
	Kind     string   `json:"kind"`
	Criteria []string `json:"criteria"`
	// DiffVsPRISM is the paired difference baseline − PRISM (negative:
	// PRISM is ahead), on the same draws as every other interval.
	DiffVsPRISM *Diff `json:"diff_vs_prism"`
	// Missing counts, per criterion, the fit's candidates whose cell was
	// missing or out of scale and so mean-imputed; OutOfScale counts the
	// out-of-scale cells among them, Absent the candidates without any
	// entry in Baseline.Scores (all their cells are counted in Missing).
	Missing    map[string]int `json:"missing"`
	OutOfScale int            `json:"out_of_scale"`
	Absent     int            `json:"absent"`
	// Forest is the forest head's configuration (kind forest only).
	Forest *ForestSpec `json:"forest,omitempty"`
	// Gammas is the ridge head's γ chosen by the inner CV, per outer fold.
	Gammas             []float64 `json:"gammas,omitempty"`
	CallsPerCandidate  float64   `json:"calls_per_candidate,omitempty"`
	TokensPerCandidate float64   `json:"tokens_per_candidate,omitempty"`
}

// ForestSpec records the options a forest head was fitted with (the
// result-affecting fields of forest.Options; 0 means scikit-learn's default).
type ForestSpec struct {
	Trees       int    `json:"trees"`
	Seed        uint64 `json:"seed"`
	MinLeaf     int    `json:"min_leaf"`
	MaxFeatures int    `json:"max_features"`
	MaxDepth    int    `json:"max_depth"`
	NoBootstrap bool   `json:"no_bootstrap"`
}

// baselineData is one baseline's criterion matrix over the design's rows.
type baselineData struct {
	b    Baseline
	kind string
	p    int
	x    []float64 // rows × p, NaN for a missing or out-of-scale cell
	all  []float64 // per criterion, the mean of its present cells over all rows
	res  *BaselineResult
	pred []float64 // out-of-fold predictions per design row
}

// prepareBaselines validates opts.Baselines against the design and reads
// their matrices.
func prepareBaselines(d *Design, opts Options) ([]*baselineData, error) {
	var out []*baselineData
	seen := map[string]bool{}
	for _, b := range opts.Baselines {
		bd, err := prepareBaseline(d, b)
		if err != nil {
			return nil, err
		}
		if seen[b.Name] {
			return nil, fmt.Errorf("rubric baseline %q: the name appears twice", b.Name)
		}
		seen[b.Name] = true
		out = append(out, bd)
	}
	return out, nil
}

func prepareBaseline(d *Design, b Baseline) (*baselineData, error) {
	name := b.Name
	if name == "" {
		return nil, fmt.Errorf("rubric baseline: empty name")
	}
	for m := Method(0); m < numMethods; m++ {
		if name == m.String() {
			return nil, fmt.Errorf("rubric baseline %q: the name of a method", name)
		}
	}
	kind := b.Kind
	if kind == "" {
		kind = BaselineForest
	}
	if kind != BaselineForest && kind != BaselineRidge && kind != BaselineGEval {
		return nil, fmt.Errorf("rubric baseline %q: kind %q: want %s, %s or %s", name, b.Kind, BaselineForest, BaselineRidge, BaselineGEval)
	}
	p := len(b.Criteria)
	if p == 0 {
		return nil, fmt.Errorf("rubric baseline %q: no criteria", name)
	}
	if kind == BaselineGEval && b.Scales == nil {
		return nil, fmt.Errorf("rubric baseline %q: G-Eval needs the criteria's scales", name)
	}
	if b.Scales != nil && len(b.Scales) != p {
		return nil, fmt.Errorf("rubric baseline %q: %d scales for %d criteria", name, len(b.Scales), p)
	}
	for c, sc := range b.Scales {
		if !(sc[0] < sc[1]) || math.IsInf(sc[0], 0) || math.IsInf(sc[1], 0) {
			return nil, fmt.Errorf("rubric baseline %q: criterion %q: scale %v–%v: want finite min < max", name, b.Criteria[c], sc[0], sc[1])
		}
	}
	if kind == BaselineForest {
		if b.Forest.Trees == 0 {
			b.Forest = forest.DefaultOptions()
		}
		fo := b.Forest
		if fo.Trees < 0 || fo.MinLeaf < 0 || fo.MaxDepth < 0 || fo.Workers < 0 || fo.MaxFeatures < 0 || fo.MaxFeatures > p {
			return nil, fmt.Errorf("rubric baseline %q: forest options %+v: want no negative value and MaxFeatures ≤ %d criteria", name, fo, p)
		}
	}
	n := d.Rows()
	bd := &baselineData{b: b, kind: kind, p: p, x: make([]float64, n*p), all: make([]float64, p), pred: make([]float64, n),
		res: &BaselineResult{Kind: kind, Criteria: slices.Clone(b.Criteria), Missing: map[string]int{},
			CallsPerCandidate: b.CallsPerCandidate, TokensPerCandidate: b.TokensPerCandidate}}
	for _, c := range b.Criteria {
		bd.res.Missing[c] = 0
	}
	if kind == BaselineForest {
		fo := b.Forest
		bd.res.Forest = &ForestSpec{Trees: fo.Trees, Seed: fo.Seed, MinLeaf: fo.MinLeaf, MaxFeatures: fo.MaxFeatures, MaxDepth: fo.MaxDepth, NoBootstrap: fo.NoBootstrap}
	}
	for g, ctx := range d.Contexts {
		for i, cand := range d.Candidates[g] {
			r := d.Off[g] + i
			row := bd.x[r*p : (r+1)*p]
			v, ok := b.Scores[[2]string{ctx, cand}]
			if !ok {
				bd.res.Absent++
				for c := range row {
					row[c] = math.NaN()
					bd.res.Missing[b.Criteria[c]]++
				}
				continue
			}
			if len(v) != p {
				return nil, fmt.Errorf("rubric baseline %q: context %q candidate %q: %d scores for %d criteria", name, ctx, cand, len(v), p)
			}
			for c, s := range v {
				switch {
				case math.IsNaN(s) || math.IsInf(s, 0):
					s = math.NaN()
				case b.Scales != nil && (s < b.Scales[c][0] || s > b.Scales[c][1]):
					s = math.NaN()
					bd.res.OutOfScale++
				}
				if math.IsNaN(s) {
					bd.res.Missing[b.Criteria[c]]++
				}
				row[c] = s
			}
		}
	}
	for c := 0; c < p; c++ {
		var s float64
		m := 0
		for r := 0; r < n; r++ {
			if v := bd.x[r*p+c]; !math.IsNaN(v) {
				s += v
				m++
			}
		}
		if m == 0 {
			return nil, fmt.Errorf("rubric baseline %q: criterion %q has no score for any candidate of the fit", name, b.Criteria[c])
		}
		bd.all[c] = s / float64(m)
	}
	return bd, nil
}

// means returns, per criterion, the mean of its present cells over rows
// (summed in the order given); a criterion with no present cell there
// takes its mean over all the design's rows.
func (bd *baselineData) means(rows []int) []float64 {
	p := bd.p
	mu := make([]float64, p)
	cnt := make([]int, p)
	for _, r := range rows {
		for c, v := range bd.x[r*p : (r+1)*p] {
			if !math.IsNaN(v) {
				mu[c] += v
				cnt[c]++
			}
		}
	}
	for c := range mu {
		if cnt[c] > 0 {
			mu[c] /= float64(cnt[c])
		} else {
			mu[c] = bd.all[c]
		}
	}
	return mu
}

// fill returns the rows' criterion matrix (len(rows) × p) with each
// missing cell replaced by its criterion's entry of mu.
func (bd *baselineData) fill(rows []int, mu []float64) []float64 {
	p := bd.p
	x := make([]float64, len(rows)*p)
	for i, r := range rows {
		for c, v := range bd.x[r*p : (r+1)*p] {
			if math.IsNaN(v) {
				v = mu[c]
			}
			x[i*p+c] = v
		}
	}
	return x
}

// gevalScore is the G-Eval prediction of one filled row: the mean over
// the criteria, in order, of (s − min)/(max − min) (judge.GEvalScore).
func (bd *baselineData) gevalScore(row []float64) float64 {
	var s float64
	for c, v := range row {
		sc := bd.b.Scales[c]
		s += (v - sc[0]) / (sc[1] - sc[0])
	}
	return s / float64(len(row))
}

// ridgeHead is the ridge regression of the human score y on the filled
// criterion ratings x over a set of training rows, with an unpenalised
// intercept: β(γ) = (XcᵀXc + μI)⁻¹ Xcᵀ(y − ȳ) with Xc = X − x̄ (training
// means) and μ = γ · tr(XcᵀXc)/p, PRISM's penalty scale (§4). A prediction
// is ȳ + Σc (x_c − x̄_c) β_c, summed in criterion order.
type ridgeHead struct {
	mu   []float64 // imputation means (the training means of the present cells)
	mx   []float64 // column means of the filled training matrix
	my   float64
	path *ridgePath
	beta []float64
}

func (bd *baselineData) fitRidge(rows []int, human []float64) (*ridgeHead, error) {
	p := bd.p
	h := &ridgeHead{mu: bd.means(rows), mx: make([]float64, p), beta: make([]float64, p)}
	x := bd.fill(rows, h.mu)
	n := float64(len(rows))
	for i, r := range rows {
		for c := 0; c < p; c++ {
			h.mx[c] += x[i*p+c]
		}
		h.my += human[r]
	}
	for c := range h.mx {
		h.mx[c] /= n
	}
	h.my /= n
	a := make([]float64, p*p)
	b := make([]float64, p)
	xc := make([]float64, p)
	for i, r := range rows {
		for c := 0; c < p; c++ {
			xc[c] = x[i*p+c] - h.mx[c]
		}
		y := human[r] - h.my
		for c := 0; c < p; c++ {
			for e := c; e < p; e++ {
				a[c*p+e] += xc[c] * xc[e]
			}
			b[c] += xc[c] * y
		}
	}
	for c := 0; c < p; c++ {
		for e := c + 1; e < p; e++ {
			a[e*p+c] = a[c*p+e]
		}
	}
	path, ok := newRidgePath(a, b, trace(a, p)/float64(p))
	if !ok {
		return nil, errEigen
	}
	h.path = path
	return h, nil
}

// predictRows stores in dst[r] the prediction at γ of each row r of rows,
// whose filled ratings (bd.fill with h.mu) are x.
func (h *ridgeHead) predictRows(bd *baselineData, gamma float64, rows []int, x, dst []float64) {
	h.path.solve(gamma, h.beta)
	p := bd.p
	for i, r := range rows {
		var s float64
		for c, b := range h.beta {
			s += (x[i*p+c] - h.mx[c]) * b
		}
		dst[r] = h.my + s
	}
}

// baselineSpace is how a fit's units map to design rows and are scored:
// contexts and the within-context metric, or candidates and the pooled
// Spearman correlation (global mode).
type baselineSpace struct {
	rowsOf func(units []int) []int                   // the units' rows, in design order
	score  func(units []int, pred []float64) float64 // CV score of the units from per-row predictions
}

// fitBaselineFold computes bd's predictions for the rows of the outer
// fold's test units from a fit on its training units (π order), storing
// them in bd.pred, and for a ridge head returns the γ its inner CV chose
// (0 otherwise). Folds write disjoint rows.
func fitBaselineFold(ctx context.Context, bd *baselineData, sp baselineSpace, human []float64, train, test []int, opts Options) (float64, error) {
	trainRows, testRows := sp.rowsOf(train), sp.rowsOf(test)
	switch bd.kind {
	case BaselineGEval:
		x := bd.fill(testRows, bd.means(trainRows))
		for i, r := range testRows {
			bd.pred[r] = bd.gevalScore(x[i*bd.p : (i+1)*bd.p])
		}
		return 0, nil
	case BaselineForest:
		mu := bd.means(trainRows)
		y := make([]float64, len(trainRows))
		for i, r := range trainRows {
			y[i] = human[r]
		}
		fo, err := forest.Fit(ctx, bd.fill(trainRows, mu), len(trainRows), bd.p, y, bd.b.Forest)
		if err != nil {
			return 0, err
		}
		pred := fo.PredictRows(nil, bd.fill(testRows, mu))
		for i, r := range testRows {
			bd.pred[r] = pred[i]
		}
		return 0, nil
	}
	// Ridge: the inner CV of §5 over the training units, then the refit.
	gammas := opts.Gammas
	G, nt := len(gammas), len(train)
	preds := make([][]float64, G)
	for gi := range preds {
		preds[gi] = make([]float64, len(human))
	}
	bounds := SplitParts(nt, opts.Folds)
	for p := range opts.Folds {
		lo, hi := bounds[p], bounds[p+1]
		if lo == hi {
			continue
		}
		others := append(slices.Clone(train[:lo]), train[hi:]...)
		h, err := bd.fitRidge(sp.rowsOf(others), human)
		if err != nil {
			return 0, fmt.Errorf("inner fold %d: %w", p+1, err)
		}
		part := sp.rowsOf(train[lo:hi])
		x := bd.fill(part, h.mu)
		for gi, gam := range gammas {
			h.predictRows(bd, gam, part, x, preds[gi])
		}
	}
	cv := make([]float64, G)
	for gi := range gammas {
		cv[gi] = sp.score(train, preds[gi])
	}
	gam := gammas[bestGamma(cv, gammas)]
	h, err := bd.fitRidge(trainRows, human)
	if err != nil {
		return 0, err
	}
	h.predictRows(bd, gam, testRows, bd.fill(testRows, h.mu), bd.pred)
	return gam, nil
}

// contextRows returns the rows of contexts ctxs in design order.
func contextRows(d *Design, ctxs []int) []int {
	s := slices.Sorted(slices.Values(ctxs))
	var rows []int
	for _, g := range s {
		for r := d.Off[g]; r < d.Off[g+1]; r++ {
			rows = append(rows, r)
		}
	}
	return rows
}
