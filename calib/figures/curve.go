package figures

import (
	"fmt"
	"image/color"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/prism-eval/prism/calib/curve"
)

// curveColors colour a learning curve's series in order.
var curveColors = []color.Color{colT, colE, colA, colH, color.RGBA{R: 0x09, G: 0x69, B: 0xda, A: 0xff}, colGrey}

// Curve is a learning curve (docs/agree.md "Learning curve"): per series,
// the median across draws against the number of labelled contexts (log
// scale, a tick at each size), with the 10th–90th percentile band as a
// translucent area; title names what was measured.
func Curve(c *curve.Curve, title string) (*Figure, error) {
	f := newFigure()
	p := f.Plot
	p.Title.Text = title
	p.X.Label.Text = "labelled contexts"
	// Two lines, as Budget's: in one the label is longer than the axis.
	p.Y.Label.Text = c.Metric + fmt.Sprintf("\n(median, band: 10–90%% of %d draws)", c.Draws)
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	var xs, ys []float64
	for _, pt := range c.Points {
		x := float64(pt.Contexts)
		ticks = append(ticks, plot.Tick{Value: x, Label: strconv.Itoa(pt.Contexts)})
		xs = append(xs, x)
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	for k, name := range c.Series {
		col := curveColors[k%len(curveColors)]
		var mid, lo, hi plotter.XYs
		for _, pt := range c.Points {
			b, ok := pt.Series[name]
			if !ok {
				continue
			}
			x := float64(pt.Contexts)
			mid = append(mid, plotter.XY{X: x, Y: b.Median})
			lo = append(lo, plotter.XY{X: x, Y: b.P10})
			hi = append(hi, plotter.XY{X: x, Y: b.P90})
			ys = append(ys, b.P10, b.P90, b.Median)
		}
		if len(mid) == 0 {
			continue
		}
		if err := band(p, lo, hi, col); err != nil {
			return nil, err
		}
		l, s, err := plotter.NewLinePoints(mid)
		if err != nil {
			return nil, err
		}
		l.Color, s.Color = col, col
		p.Add(l, s)
		f.addLegend(name, l, s)
	}
	p.X.Min, p.X.Max = paddedLog(xs...)
	p.Y.Min, p.Y.Max = padded(ys...)
	return f, nil
}

// band fills the area between lo and hi (the same xs) with col, faint.
func band(p *plot.Plot, lo, hi plotter.XYs, col color.Color) error {
	ring := append(plotter.XYs{}, lo...)
	for i := len(hi) - 1; i >= 0; i-- {
		ring = append(ring, hi[i])
	}
	if len(lo) == 1 { // one size: a thin bar rather than a degenerate area
		x := lo[0].X
		ring = plotter.XYs{{X: x * 0.98, Y: lo[0].Y}, {X: x * 1.02, Y: lo[0].Y}, {X: x * 1.02, Y: hi[0].Y}, {X: x * 0.98, Y: hi[0].Y}}
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return err
	}
	r, g, b, _ := col.RGBA()
	poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x30}
	poly.LineStyle.Width = 0
	p.Add(poly)
	return nil
}

// SaveCurve writes the learning curve to path, PNG or SVG by its
// extension.
func SaveCurve(c *curve.Curve, title, path string) error {
	return saveFigure(path, func() (*Figure, error) { return Curve(c, title) })
}
