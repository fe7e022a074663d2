package signal

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/prism-eval/prism/model"
)

// Options configure Signal. Start from DefaultOptions.
type Options struct {
	Bootstrap  int    // context-bootstrap resamples behind every interval, ≥ 1
	Seed       uint64 // seeds the bootstrap
	ScoresFile string // name used in errors about score rows ("scores" when empty)
	// PerWording pools every wording's displacement separately instead of
	// the protocol's wording mean (see Signal). Off by default; the
	// report's Pooling says which was used.
	PerWording bool
}

// DefaultOptions returns the protocol's defaults: 2,000 resamples,
// seed 42, wordings averaged (docs/protocol.md §8).
func DefaultOptions() Options { return Options{Bootstrap: 2000, Seed: 42} }

// The values of Report.Pooling.
const (
	// PoolingWordingMean: one displacement per candidate, run and probe
	// (sign), from the mean of its wordings and same-run repeats
	// (docs/protocol.md §1, §8). The default.
	PoolingWordingMean = "wording-mean"
	// PoolingPerWording: one displacement per candidate, run, probe and
	// wording (Options.PerWording).
	PoolingPerWording = "per-wording"
)

// MinContexts is the fewest contexts that must contribute
// displacements both to a unit and to the neutral reference before the
// unit gets a verdict; below it the unit is TooFew and does not pass.
//
// The interval is a context bootstrap, so its lower bound is only as good
// as the number of contexts resampled. With G contributing contexts, a
// resample that draws one context G times has probability G·G^−G: 1 (one
// context: the interval collapses to the point estimate, e.g.
// "1.00 [1.00, 1.00]"), 0.5, 0.11, 0.016 for G = 1…4, i.e. at G ≤ 4 such
// degenerate single-context resamples make up all, or a large part, of the
// 2.5% tail the screen reads, and the bound says more about one context
// than about the bank. At G = 5 they are 0.16%, a fifteenth of the tail,
// and the 126 distinct resamples mix contexts. Five is also a quarter of
// the default screen sample (20 contexts), so a live panel gives verdicts
// early. Every contributing context adds at least two displacements (a
// context needs two candidates to be centered), so N ≥ 2·MinContexts
// for a unit with a verdict.
const MinContexts = 5

// Report holds the signal diagnostics of docs/protocol.md §8 for one set of
// score rows: the RMS of probe displacements per unit against the neutral
// clauses and the Vanilla repeat reference, and the reproducibility of
// the displacements across runs. It is the JSON document of
// `prism screen --json`; non-finite numbers (undefined ratios, fewer than
// two runs) are written as null.
type Report struct {
	// Units holds one entry per attribute (both signs pooled) and per
	// context probe: attributes sorted by name, then "ctx:NAME" sorted.
	Units   []Unit `json:"units"`
	Pooled  Unit   `json:"pooled"`  // all attribute and context-probe displacements pooled
	Neutral Unit   `json:"neutral"` // the neutral reference: RMS_neutral, N; Ratio ≡ 1
	// Runs is the number of distinct run labels; RunNames lists them sorted
	// ("" for rows without a run label).
	Runs      int      `json:"runs"`
	RunNames  []string `json:"run_names"`
	Contexts  int      `json:"contexts"`  // contexts resampled by the bootstrap
	Bootstrap int      `json:"bootstrap"` // resamples behind every interval
	Seed      uint64   `json:"seed"`
	// Pooling is PoolingWordingMean (the default) or PoolingPerWording:
	// how displacements were formed (see Signal).
	Pooling string `json:"pooling"`
	// MinContexts is MinContexts, the fewest contributing contexts
	// for a verdict (see Unit.TooFew).
	MinContexts int `json:"min_contexts"`
	// RepeatRMS is the repeat reference: the RMS of the differences of
	// within-context centered s0 between every pair of runs, not divided
	// by √2 (NaN with fewer than two runs). RepeatN counts the differences.
	RepeatRMS float64 `json:"repeat_rms"`
	RepeatN   int     `json:"repeat_n"`

	// Reproducibility across runs (NaN entries with fewer than two runs):
	// per probe (ATTR:+, ATTR:-, ctx:NAME in report column order) and per
	// neutral clause (sorted), and the directional and shared components
	// of every attribute.
	Probes     []Reproducibility `json:"probes"`
	Neutrals   []Reproducibility `json:"neutrals"`
	Components []Component       `json:"components"`
	// Mean across-run correlation (RunCorr) over the probes and over the
	// neutral clauses that have one (paper Fig. 6).
	ProbeRunCorrMean   float64 `json:"probe_run_corr_mean"`
	NeutralRunCorrMean float64 `json:"neutral_run_corr_mean"`
}

// Unit is one probe unit's displacement size (docs/protocol.md §8).
//
// With the default pooling (PoolingWordingMean), a unit's displacements
// are, for each candidate i, run r and probe p of the unit (ATTR:+ and
// ATTR:− for an attribute, the one probe ctx:NAME for a context probe),
//
//	d = s̄_r(i; p) − s0_r(i),
//
// s̄ the mean of all of the run's scores of i under p (its wordings and
// same-run repeats), s0 the run's mean baseline score, then centered
// within context (over the candidates with both). So N = 2·R·n for an
// attribute scored on n candidates in R runs (R·n for a context probe),
// whatever the number of wordings, and
//
//	RMS = sqrt(Σ d² / N),  Ratio = RMS / RMS_neutral,
//
// RMS_neutral being the same RMS over the neutral clauses' displacements
// (each clause one probe). With PoolingPerWording, each wording w gives
// its own d = s̄_r(i; p, w) − s0_r(i), and N = 2·W·R·n.
//
// CI is the percentile 95% interval of Ratio over context-bootstrap
// resamples. The unit passes the signal screen when CI[0] > 1 and it is
// not TooFew.
type Unit struct {
	Name  string     `json:"name"` // "coverage", "ctx:expert", "pooled", "neutral"
	N     int        `json:"n"`    // displacements used
	RMS   float64    `json:"rms"`
	Ratio float64    `json:"ratio"` // RMS / RMS_neutral
	CI    [2]float64 `json:"ci"`    // 95% context-bootstrap interval of Ratio
	Pass  bool       `json:"pass"`  // CI[0] > 1 and not TooFew: the signal screen
	// Contexts counts the contexts that contribute displacements to N.
	Contexts int `json:"contexts"`
	// TooFew is set when Contexts, or the neutral reference's Contexts,
	// is below MinContexts: the unit gets no verdict (Pass is
	// false) however its interval lies. Ratio and CI are still reported.
	TooFew bool `json:"too_few"`
	// RatioVsRepeat is RMS / RepeatRMS with its interval; NaN without at
	// least two runs.
	RatioVsRepeat float64    `json:"ratio_vs_repeat"`
	CIVsRepeat    [2]float64 `json:"ci_vs_repeat"`
	// ReproRMS and RunCorr pool the unit's probes' cross-run statistics
	// (see Reproducibility); NaN without at least two runs.
	ReproRMS float64 `json:"repro_rms"`
	RunCorr  float64 `json:"run_corr"`
}

// Reproducibility is one contrast's agreement with itself across runs.
// For a contrast U (the centered wording-averaged displacement
// s(p) − s0 of one probe, or a component), with U_i^(r) its value for
// candidate i in run r:
//
//	Q(U,U)   = Σ_i Σ_{r≠r′} U_i^(r) U_i^(r′) / Σ_i R_i(R_i − 1)
//	M(U,U)   = Σ_i Σ_r (U_i^(r))² / Σ_i R_i
//	ReproRMS = sqrt(max(Q(U,U), 0))
//	RunCorr  = Q(U,U) / M(U,U)
//
// over the candidates with the contrast in R_i ≥ 2 runs; with complete
// data (R_i = R) Q is docs/protocol.md §8's 1/(nR(R−1)) Σ_i Σ_{r≠r′}. RunCorr is
// the across-run correlation of the (already centered) contrast: for two
// runs of equal spread, the correlation of run 1's values with run 2's.
type Reproducibility struct {
	Name     string  `json:"name"`
	N        int     `json:"n"`   // candidates with the contrast in at least two runs
	RMS      float64 `json:"rms"` // same-run RMS, sqrt(M(U,U))
	ReproRMS float64 `json:"repro_rms"`
	RunCorr  float64 `json:"run_corr"`
}

// Component is the cross-run view of one attribute's directional and
// shared components (docs/protocol.md §2): O = (s+ − s−)/2 and E = (s+ + s−)/2 − s0,
// wording-averaged within each run and centered within context.
type Component struct {
	Attribute string  `json:"attribute"`
	N         int     `json:"n"` // candidates with O and E in at least two runs
	ReproO    float64 `json:"repro_rms_o"`
	ReproE    float64 `json:"repro_rms_e"`
	RunCorrO  float64 `json:"run_corr_o"`
	RunCorrE  float64 `json:"run_corr_e"`
	// CorrOE is Q(O,E) / sqrt(Q(O,O) Q(E,E)): how far the shared
	// component moves with the directional one across runs (NaN when
	// either Q is not positive).
	CorrOE float64 `json:"corr_oe"`
}

// Signal computes the signal diagnostics of docs/protocol.md §8 from tidy score
// rows. Rows with different Run labels are different runs.
//
// Displacements follow the protocol's s(x; p), the mean over wordings and
// repeats (§1): within each run, all rows of a candidate and probe
// (every wording and same-run repeat of one sign, of one context probe
// or of one neutral clause) are averaged, as BuildDesign averages them
// for the Jacobian (§2), and the displacement is that mean minus s0, the
// same run's mean baseline score of the candidate. Displacements are
// centered within context over the candidates that have the pair in that
// run and probe; a context group with a single such candidate carries no
// within-context information and is left out (it does not count in N).
// A unit then pools its displacements over both signs, runs and
// candidates (§8); see Unit for RMS and N. Each neutral clause is
// one instruction, pooled over clauses and runs.
//
// With opts.PerWording, each wording's mean is a probe of its own instead
// (N counts every wording). The two differ when a sign has several
// wordings: averaging W wordings shrinks the call noise of s(p) by 1/W,
// so a probe that adds only noise has ratio ≈ sqrt((1 + 1/W)/2) under the
// wording mean (≈ 0.87 for W = 2 against one-wording neutral clauses),
// and ≈ 1 per wording. The reproducibility statistics always use the
// wording mean.
//
// A unit whose displacements, or the neutral reference's, come from
// fewer than MinContexts contexts is TooFew and gets no verdict.
//
// Signal works on partial data (a run in progress): it uses whatever
// complete (s0, probe) pairs exist; units without data get N = 0 and NaN
// statistics. Missing scores are skipped. Errors name the file, line and
// field of a row with an invalid probe name or a non-finite score.
func Signal(ctx context.Context, rows []model.ScoreRow, opts Options) (*Report, error) {
	if opts.Bootstrap < 1 {
		return nil, fmt.Errorf("bootstrap resamples %d: want at least 1", opts.Bootstrap)
	}
	sf := opts.ScoresFile
	if sf == "" {
		sf = "scores"
	}
	t, err := tabulate(rows, sf)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := newSignalAccum(t)
	a.displacements(opts.PerWording)
	a.repeats()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r := &Report{Runs: len(t.runs), RunNames: slices.Clone(t.runs), Contexts: len(t.ctxs),
		Bootstrap: opts.Bootstrap, Seed: opts.Seed, Pooling: PoolingWordingMean, MinContexts: MinContexts}
	if opts.PerWording {
		r.Pooling = PoolingPerWording
	}
	a.fill(r, opts)
	reproducibility(t, r)
	return r, nil
}

// rms is sqrt(ss/n), NaN when n = 0.
func rms(ss float64, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return math.Sqrt(ss / float64(n))
}
