package calib

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prism-eval/prism/model"
)

// Report is the result of Fit and the JSON document of `prism fit --json`.
// Its field names and JSON keys are a documented, stable format (see the
// README); every number prism shows comes from a Report.
type Report struct {
	// Study names the workspace study the report was fitted on (nil for
	// scores from files): dataset, judge, bank, runs and what went in.
	Study  *model.Study `json:"study,omitempty"`
	Metric string       `json:"metric"` // "spearman" or "pairwise"
	// Comparisons counts the human comparisons the pairwise metric
	// counted (Design.Pairs, docs/protocol.md §6); 0: it counted the
	// pairs of unequal human scores.
	Comparisons int                 `json:"comparisons,omitempty"`
	Global      bool                `json:"global"`       // one group: the whole dataset (Options.Global)
	Seed        uint64              `json:"seed"`         // drives π (when no order was given) and the bootstrap
	Bootstrap   int                 `json:"bootstrap"`    // resamples behind every interval
	GammaGrid   []float64           `json:"gamma_grid"`   // γ values, in the order of FoldFit.CV
	NContexts   int                 `json:"n_contexts"`   // contexts in the fit
	NCandidates int                 `json:"n_candidates"` // labelled candidates in the fit
	Columns     []string            `json:"columns"`      // Jacobian columns, in β order
	Attributes  []string            `json:"attributes"`   // attributes, in Half β order
	Imputed     map[string]int      `json:"imputed"`      // score column → cells filled with the column mean
	Order       []string            `json:"order"`        // the permutation π of the contexts
	Methods     Methods             `json:"methods"`
	Folds       []Fold              `json:"folds"`
	Profiles    map[string]*Profile `json:"profiles"` // attribute → profile
	// Sweep maps γ (formatted with strconv 'g', e.g. "0.001", "1000") to the
	// out-of-fold mean of each fitted method at that fixed γ in every fold.
	Sweep map[string]map[string]float64 `json:"sweep"`
	// Baselines maps a rubric baseline's name (Options.Baselines) to its
	// result, scored on the same folds and bootstrap draws as Methods
	// (docs/protocol.md §12); absent without baselines.
	Baselines map[string]*BaselineResult `json:"baselines,omitempty"`
	// Budgets maps a method's name to the calls and tokens per candidate
	// its scores took, when the caller knows them (prism fit from a
	// workspace); absent otherwise. The fit does not compute or use them.
	Budgets map[string]Budget `json:"budgets,omitempty"`
	// RepeatCV summarises the fit repeated under further fold
	// permutations (Options.RepeatCV > 1); absent otherwise. Every other
	// number of the report is permutation 0's.
	RepeatCV *RepeatCV `json:"repeat_cv,omitempty"`
}

// Budget is what one candidate's scores cost a method: judge calls and
// tokens (prompt + completion) per candidate, averaged over candidates.
type Budget struct {
	CallsPerCandidate  float64 `json:"calls_per_candidate"`
	TokensPerCandidate float64 `json:"tokens_per_candidate"`
}

func (r *Report) addBaseline(name string, res *BaselineResult) {
	if r.Baselines == nil {
		r.Baselines = map[string]*BaselineResult{}
	}
	r.Baselines[name] = res
}

// Methods holds one result per method.
type Methods struct {
	Vanilla    *MethodResult `json:"vanilla"`
	PRISM      *MethodResult `json:"prism"`
	AlphaPRISM *MethodResult `json:"alpha_prism"`
	Half       *MethodResult `json:"half"`
	Taylor     *MethodResult `json:"taylor,omitempty"` // only with Options.Taylor
}

// byMethod returns the result slot of m.
func (ms *Methods) byMethod(m Method) **MethodResult {
	switch m {
	case Vanilla:
		return &ms.Vanilla
	case PRISM:
		return &ms.PRISM
	case AlphaPRISM:
		return &ms.AlphaPRISM
	case Half:
		return &ms.Half
	case Taylor:
		return &ms.Taylor
	}
	panic("calib: no result slot for method " + m.String())
}

// Get returns the result of method m.
func (ms *Methods) Get(m Method) *MethodResult { return *ms.byMethod(m) }

// MethodResult is one method's out-of-fold score.
type MethodResult struct {
	Mean       float64            `json:"mean"`        // mean over contexts of the metric
	CI         [2]float64         `json:"ci"`          // bootstrap percentile 95% interval of the mean
	PerContext map[string]float64 `json:"per_context"` // context → metric (pairwise: contexts without an unequal-human pair left out)
	// DiffVsVanilla is the paired difference method − Vanilla (nil for Vanilla).
	DiffVsVanilla *Diff `json:"diff_vs_vanilla,omitempty"`
}

// Diff is a paired difference of means with its bootstrap interval.
type Diff struct {
	Mean float64    `json:"mean"`
	CI   [2]float64 `json:"ci"`
}

// Fold is one outer fold: its test contexts and each method's selected fit
// on the fold's training contexts.
type Fold struct {
	Fold         int      `json:"fold"`          // 1-based
	TestContexts []string `json:"test_contexts"` // in π order
	PRISM        FoldFit  `json:"prism"`
	AlphaPRISM   FoldFit  `json:"alpha_prism"`
	Half         FoldFit  `json:"half"`
	Taylor       *FoldFit `json:"taylor,omitempty"` // only with Options.Taylor
}

func (f *Fold) byMethod(m Method) *FoldFit {
	switch m {
	case PRISM:
		return &f.PRISM
	case AlphaPRISM:
		return &f.AlphaPRISM
	case Half:
		return &f.Half
	case Taylor:
		if f.Taylor == nil {
			f.Taylor = &FoldFit{}
		}
		return f.Taylor
	}
	panic("calib: no fold slot for method " + m.String())
}

// FoldFit is one method's fit in one outer fold.
type FoldFit struct {
	Gamma float64            `json:"gamma"` // selected by the inner CV
	Alpha float64            `json:"alpha"` // 1 for PRISM and Half
	Beta  map[string]float64 `json:"beta"`  // column → β (Half, Taylor: attribute → δ)
	CV    []float64          `json:"cv"`    // inner CV score per γ, in GammaGrid order
}

// Profile is one attribute's correction profile (docs/protocol.md §7).
type Profile struct {
	A ProfileStat `json:"a"` // directional: (βk+ + βk−)·RMS(C Ok)/RMS(C s0)
	E ProfileStat `json:"e"` // shared: (βk+ − βk−)·RMS(C Ek)/RMS(C s0)
}

// ProfileStat summarises one profile entry over the outer folds.
type ProfileStat struct {
	Mean       float64   `json:"mean"`
	Min        float64   `json:"min"`
	Max        float64   `json:"max"`
	Folds      []float64 `json:"folds"`       // per outer fold, fold order
	SignStable int       `json:"sign_stable"` // folds whose value has the sign of the mean (strictly)
}

// BaselineNames are r's rubric baselines in the paper's Table 2 order:
// the fitted-head (SAJA) rows, then G-Eval, each by name.
func (r *Report) BaselineNames() []string {
	names := make([]string, 0, len(r.Baselines))
	for n := range r.Baselines {
		names = append(names, n)
	}
	slices.Sort(names)
	slices.SortStableFunc(names, func(a, b string) int {
		ga, gb := r.Baselines[a].Kind == BaselineGEval, r.Baselines[b].Kind == BaselineGEval
		switch {
		case ga == gb:
			return 0
		case ga:
			return 1
		}
		return -1
	})
	return names
}

// BaselineLabel is the display name of a rubric baseline's row, as the
// paper's Table 2 names it, with its head: "SAJA broad (RF)",
// "SAJA granular (ridge)", "G-Eval"; other names are shown as they are.
func BaselineLabel(name, kind string) string {
	label := name
	switch {
	case name == "saja_broad":
		label = "SAJA broad"
	case name == "saja_granular":
		label = "SAJA granular"
	case name == "geval" || strings.HasPrefix(name, "geval_"):
		label = "G-Eval" + strings.TrimPrefix(name, "geval")
	}
	switch kind {
	case BaselineForest:
		label += " (RF)"
	case BaselineRidge:
		label += " (ridge)"
	}
	return label
}

// MissingText says which cells of a rubric row were missing and
// mean-imputed, or "" when none were.
func MissingText(b *BaselineResult) string {
	var cells []string
	total := 0
	for _, c := range b.Criteria {
		if n := b.Missing[c]; n > 0 {
			cells = append(cells, fmt.Sprintf("%s %d", c, n))
			total += n
		}
	}
	if total == 0 {
		return ""
	}
	s := fmt.Sprintf("%d missing cell(s) mean-imputed (%s)", total, strings.Join(cells, ", "))
	if b.OutOfScale > 0 {
		s += fmt.Sprintf(", %d of them out of scale", b.OutOfScale)
	}
	if b.Absent > 0 {
		s += fmt.Sprintf("; %d candidate(s) without any rating", b.Absent)
	}
	return s
}
