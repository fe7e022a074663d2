package figures

import (
	"fmt"
	"image/color"
	"slices"
	"strings"

	"github.com/prism-eval/prism/calib/budget"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// budgetColors colour the budget curve's families, in report order.
var budgetColors = map[string]color.Color{
	budget.FamilyUnits:           colH,
	budget.FamilyColumns:         colE,
	budget.FamilyOneWording:      color.RGBA{R: 0x09, G: 0x69, B: 0xda, A: 0xff},
	budget.FamilyAdaptive:        colT,
	budget.FamilyAdaptiveWording: colA,
}

// Budget is the budget curve (docs/budget.md): per family, the
// out-of-fold mean against the mean judge calls per candidate, the
// adaptive points with the paired 95% context-bootstrap interval of their
// difference from the full bank drawn about them; Vanilla,
// the full bank and one sign per attribute as single marks; a dashed line
// at the full bank's mean less the tolerance.
func Budget(r *budget.Report) (*Figure, error) {
	fig := newFigure()
	p := fig.Plot
	p.Title.Text = "Budget curve (out of fold; policies learned on training folds)"
	p.X.Label.Text = "judge calls per candidate"
	// Two lines: in one, the label is longer than the axis above the
	// legend's rows, and gonum would shorten the axis to fit it.
	p.Y.Label.Text = "mean " + r.Metric + "\n(bars: paired 95% CI vs full)"
	var xs, ys []float64
	var fams []string
	for _, pt := range r.Points {
		if !slices.Contains(fams, pt.Family) {
			fams = append(fams, pt.Family)
		}
		xs = append(xs, pt.Calls)
	}
	for _, f := range fams {
		var xy plotter.XYs
		var errs plotter.YErrors
		for _, pt := range r.Points {
			if pt.Family == f {
				xy = append(xy, plotter.XY{X: pt.Calls, Y: pt.Mean})
				// The paired interval of the difference from the full
				// bank, drawn about the point: the uncertainty the
				// comparison has, not the spread of the contexts.
				errs = append(errs, struct{ Low, High float64 }{pt.VsFull - pt.VsFullCI[0], pt.VsFullCI[1] - pt.VsFull})
			}
		}
		c, line := budgetColors[f]
		if !line {
			c = colGrey
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		s.Color = c
		p.Add(s)
		if line && len(xy) > 1 {
			sorted := slices.Clone(xy)
			slices.SortStableFunc(sorted, func(a, b plotter.XY) int {
				switch {
				case a.X < b.X:
					return -1
				case a.X > b.X:
					return 1
				}
				return 0
			})
			l, err := plotter.NewLine(sorted)
			if err != nil {
				return nil, err
			}
			l.Color = c
			p.Add(l)
			fig.addLegend(f, l, s)
		} else {
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: []string{f}})
			if err != nil {
				return nil, err
			}
			lb.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(-4)}
			p.Add(lb)
		}
		if strings.HasPrefix(f, budget.FamilyAdaptive) {
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYer
				plotter.YErrorer
			}{xy, errs})
			if err != nil {
				return nil, err
			}
			eb.Color = c
			p.Add(eb)
		}
	}
	// The axes span every mark and every drawn interval.
	for _, pt := range r.Points {
		ys = append(ys, pt.Mean)
		if strings.HasPrefix(pt.Family, budget.FamilyAdaptive) {
			ys = append(ys, pt.Mean-(pt.VsFull-pt.VsFullCI[0]), pt.Mean+(pt.VsFullCI[1]-pt.VsFull))
		}
	}
	full := -1.0
	for _, pt := range r.Points {
		if pt.Family == budget.FamilyFull {
			full = pt.Mean
		}
	}
	lo, hi := padded(xs...)
	ref, err := plotter.NewLine(plotter.XYs{{X: lo, Y: full - r.Tolerance}, {X: hi, Y: full - r.Tolerance}})
	if err != nil {
		return nil, err
	}
	ref.Color, ref.Dashes = colGrey, []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(ref)
	fig.addLegend(fmt.Sprintf("full − %g", r.Tolerance), ref)
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = padded(append(ys, full-r.Tolerance)...)
	return fig, nil
}

// SaveBudget writes the budget curve to path, PNG or SVG by its extension.
func SaveBudget(r *budget.Report, path string) error {
	return saveFigure(path, func() (*Figure, error) { return Budget(r) })
}
