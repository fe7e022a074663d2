package curve

import (
	"context"

	"github.com/prism-eval/prism/calib"
)

// Series of a fit's learning curve.
const (
	SeriesVanilla = "vanilla"
	SeriesPRISM   = "prism"
	SeriesGain    = "gain" // PRISM − Vanilla on the same draw
)

// Fit is prism fit's learning curve: on each subset of d's contexts, the
// nested cross-validation of calib.FitDesign with fopts (its own π:
// Permutation of the subset's contexts by fopts.Seed; one bootstrap
// resample, since only the out-of-fold means are read), and the
// out-of-fold means of Vanilla and PRISM and PRISM's gain over Vanilla.
// Sizes below fopts.Folds contexts cannot be cross-validated and are left
// out. Missing score cells stay filled with d's column means (over every
// context of d), as the full fit fills them.
func Fit(ctx context.Context, d *calib.Design, fopts calib.Options, opts Options) (*Curve, error) {
	fopts.Bootstrap, fopts.Order, fopts.OrderFile = 1, nil, ""
	fopts.Baselines, fopts.Taylor, fopts.Progress, fopts.RepeatCV = nil, false, nil, 0
	c := Curve{Metric: fopts.Metric, Series: []string{SeriesVanilla, SeriesPRISM, SeriesGain}, Total: len(d.Contexts),
		What: "out-of-fold " + fopts.Metric + " of Vanilla and PRISM (nested CV on the drawn contexts) and PRISM's gain over Vanilla"}
	return Build(c, max(fopts.Folds, 2), opts, func(subset []int) ([]float64, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rep, _, err := calib.FitDesign(ctx, Sub(d, subset), fopts)
		if err != nil {
			return nil, err
		}
		v, p := rep.Methods.Vanilla.Mean, rep.Methods.PRISM.Mean
		return []float64{v, p, p - v}, nil
	})
}

// Sub is the design of d's contexts keep (sorted indices): their rows, as
// they are in d. Every per-row quantity of a design (the centered
// baseline, J̃, y*) is computed within its context, so it is the same in
// the sub-design; the column means that filled missing cells are d's.
func Sub(d *calib.Design, keep []int) *calib.Design {
	s := &calib.Design{Attrs: d.Attrs, CtxProbes: d.CtxProbes, Columns: d.Columns, ScoreColumns: d.ScoreColumns,
		Imputed: d.Imputed, Means: d.Means, Off: []int{0}}
	q := d.Q()
	for _, g := range keep {
		lo, hi := d.Off[g], d.Off[g+1]
		s.Contexts = append(s.Contexts, d.Contexts[g])
		s.Candidates = append(s.Candidates, d.Candidates[g])
		s.Off = append(s.Off, s.Off[len(s.Off)-1]+hi-lo)
		s.S0 = append(s.S0, d.S0[lo:hi]...)
		s.Human = append(s.Human, d.Human[lo:hi]...)
		s.V = append(s.V, d.V[lo:hi]...)
		s.YStar = append(s.YStar, d.YStar[lo:hi]...)
		s.J = append(s.J, d.J[lo*q:hi*q]...)
		if d.JC != nil {
			s.JC = append(s.JC, d.JC[lo*q:hi*q]...)
		}
		if d.Pairs != nil { // comparison labels: the pairwise metric's
			s.Pairs = append(s.Pairs, d.Pairs[g])
		}
	}
	if d.Pairs != nil && s.Pairs == nil {
		s.Pairs = [][]calib.Pair{}
	}
	return s
}
