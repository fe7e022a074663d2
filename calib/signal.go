package calib

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/prism-eval/prism/model"
)

// SignalOptions configure Signal. Start from DefaultSignalOptions.
type SignalOptions struct {
	Bootstrap  int    // context-bootstrap resamples behind every interval, ≥ 1
	Seed       uint64 // seeds the bootstrap
	ScoresFile string // name used in errors about score rows ("scores" when empty)
}

// DefaultSignalOptions returns the protocol's defaults: 2,000 resamples,
// seed 42 (PROTOCOL §8).
func DefaultSignalOptions() SignalOptions { return SignalOptions{Bootstrap: 2000, Seed: 42} }

// SignalReport holds the signal diagnostics of PROTOCOL §8 for one set of
// score rows: the RMS of probe displacements per unit against the neutral
// clauses and the Vanilla repeat reference, and the reproducibility of
// the displacements across runs. It is the JSON document of
// `prism screen --json`; non-finite numbers (undefined ratios, fewer than
// two runs) are written as null.
type SignalReport struct {
	// Units holds one entry per attribute (both signs pooled) and per
	// context probe: attributes sorted by name, then "ctx:NAME" sorted.
	Units   []SignalUnit `json:"units"`
	Pooled  SignalUnit   `json:"pooled"`  // all attribute and context-probe displacements pooled
	Neutral SignalUnit   `json:"neutral"` // the neutral reference: RMS_neutral, N; Ratio ≡ 1
	// Runs is the number of distinct run labels; RunNames lists them sorted
	// ("" for rows without a run label).
	Runs      int      `json:"runs"`
	RunNames  []string `json:"run_names"`
	Contexts  int      `json:"contexts"`  // contexts resampled by the bootstrap
	Bootstrap int      `json:"bootstrap"` // resamples behind every interval
	Seed      uint64   `json:"seed"`
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

// SignalUnit is one probe unit's displacement size (PROTOCOL §8).
//
// With d the displacements s(p) − s0 of the unit, each centered within its
// context, run, probe and wording, RMS = sqrt(Σ d² / N) and Ratio =
// RMS / RMS_neutral. CI is the percentile 95% interval of Ratio over
// context-bootstrap resamples. The unit passes the signal screen when
// CI[0] > 1.
type SignalUnit struct {
	Name  string     `json:"name"` // "coverage", "ctx:expert", "pooled", "neutral"
	N     int        `json:"n"`    // displacements used
	RMS   float64    `json:"rms"`
	Ratio float64    `json:"ratio"` // RMS / RMS_neutral
	CI    [2]float64 `json:"ci"`    // 95% context-bootstrap interval of Ratio
	Pass  bool       `json:"pass"`  // CI[0] > 1: the signal screen
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
// data (R_i = R) Q is PROTOCOL §8's 1/(nR(R−1)) Σ_i Σ_{r≠r′}. RunCorr is
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
// shared components (PROTOCOL §2): O = (s+ − s−)/2 and E = (s+ + s−)/2 − s0,
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

// Signal computes the signal diagnostics of PROTOCOL §8 from tidy score
// rows. Rows with different Run labels are different runs; within a run,
// rows with the same candidate, probe and wording are averaged first.
//
// Displacements are per wording: each wording's s(p) − s0 with s0 the
// same run's baseline score of the candidate (all baseline rows of that
// run averaged), so a probe wording and a neutral clause are one
// instruction each and pure-noise probes have ratio ≈ 1. They are
// centered within context over the candidates that have the pair in that
// run, probe and wording; a context group with a single such candidate
// carries no within-context information and is left out (it does not
// count in N). The reproducibility statistics average the wordings of a
// sign within each run first, as the Jacobian does (PROTOCOL §2).
//
// Signal works on partial data (a run in progress): it uses whatever
// complete (s0, probe) pairs exist; units without data get N = 0 and NaN
// statistics. Missing scores are skipped. Errors name the file, line and
// field of a row with an invalid probe name or a non-finite score.
func Signal(ctx context.Context, rows []model.ScoreRow, opts SignalOptions) (*SignalReport, error) {
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
	a.displacements()
	a.repeats()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r := &SignalReport{Runs: len(t.runs), RunNames: slices.Clone(t.runs), Contexts: len(t.ctxs),
		Bootstrap: opts.Bootstrap, Seed: opts.Seed}
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
