package figures

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/budget"
	"github.com/prism-eval/prism/calib/curve"
	"github.com/prism-eval/prism/calib/signal"
	"github.com/prism-eval/prism/model"
)

// figureSVG draws p as SVG, as the package writes it.
func figureSVG(t *testing.T, p *Figure) []byte {
	t.Helper()
	c := vgsvg.New(figW, figH)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// crowdedReport has lines, bars and marks through every edge of the
// plot area: PRISM's sweep rises to the top of the γ range's high end,
// Half's falls to the bottom, and the first and last of twelve
// attributes reach the ends of the value axis.
func crowdedReport() (*calib.Report, *signal.Report) {
	r := tinyReport()
	// A study's caption makes the title two lines, as in the TUI's export.
	r.Study = &model.Study{Dataset: "summeval", Judge: "gpt-4o", Runs: "all", RunsPerContext: [2]int{3, 3}}
	r.Methods.Taylor = &calib.MethodResult{Mean: 0.5, CI: [2]float64{0.4, 0.6}}
	r.GammaGrid = []float64{0.1, 0.3, 1, 3, 10}
	r.Sweep = map[string]map[string]float64{
		"0.1": {"prism": 0.5, "alpha_prism": 0.55, "half": 0.5, "taylor": 0.5},
		"0.3": {"prism": 0.7, "alpha_prism": 0.55, "half": 0.45, "taylor": 0.55},
		"1":   {"prism": 0.85, "alpha_prism": 0.6, "half": 0.4, "taylor": 0.6},
		"3":   {"prism": 0.93, "alpha_prism": 0.62, "half": 0.3, "taylor": 0.62},
		"10":  {"prism": 0.95, "alpha_prism": 0.63, "half": 0.25, "taylor": 0.63},
	}
	r.Profiles = map[string]*calib.Profile{}
	sig := &signal.Report{}
	for i := range 12 {
		name := fmt.Sprintf("attr%02d", i)
		st := calib.ProfileStat{Mean: 0.1, Min: -0.2, Max: 0.3}
		if i == 0 || i == 11 {
			st = calib.ProfileStat{Mean: 0.8, Min: 0.5, Max: 1}
		}
		r.Profiles[name] = &calib.Profile{A: st, E: st}
		u := signal.Unit{Name: name, Ratio: 1.1, CI: [2]float64{0.9, 1.3}}
		if i == 0 || i == 11 {
			u.Ratio, u.CI = 2.5, [2]float64{2, 3}
		}
		sig.Units = append(sig.Units, u)
	}
	return r, sig
}

// crowdedBudget has every family a line and the units curve falling to
// the bottom of the plot at its right end.
func crowdedBudget() *budget.Report {
	r := budgetReport()
	pt := func(f string, calls, mean float64) budget.Point {
		return budget.Point{Family: f, Calls: calls, Mean: mean, VsFull: mean - 0.41, VsFullCI: [2]float64{mean - 0.43, mean - 0.39}}
	}
	r.Points = append(r.Points,
		pt(budget.FamilyUnits, 20, 0.2), pt(budget.FamilyUnits, 30, 0.16),
		pt(budget.FamilyColumns, 3, 0.3), pt(budget.FamilyColumns, 6, 0.33),
		pt(budget.FamilyOneWording, 4, 0.32), pt(budget.FamilyOneWording, 8, 0.35),
		pt(budget.FamilyAdaptiveWording, 10, 0.36), pt(budget.FamilyAdaptiveWording, 16, 0.38),
	)
	return r
}

// crowdedCurve has every series' band at the bottom right and the top
// right.
func crowdedCurve() *curve.Curve {
	c := curveOf()
	last := &c.Points[len(c.Points)-1]
	last.Series = map[string]curve.Band{
		"vanilla": {Median: 0.1, P10: -0.35, P90: 0.75},
		"prism":   {Median: 0.2, P10: -0.35, P90: 0.75},
		"gain":    {Median: 0.1, P10: -0.35, P90: 0.75},
	}
	return c
}

// textBox is the rectangle a text covers: from its baseline start, its
// width in sty, from the descent below the baseline to the ascent above.
func textBox(tx svgText, p *Figure) (x0, y0, x1, y1 float64) {
	sty := p.Legend.TextStyle
	ext := sty.FontExtents()
	return tx.x, tx.y - ext.Descent.Points(), tx.x + sty.Width(tx.text).Points(), tx.y + ext.Ascent.Points()
}

// dataPoints are the points of every coloured path of a figure, lines
// sampled every half point: the marks, lines, bars and bands it draws
// (and the legend's samples, which sit beside its texts).
func dataPoints(paths []svgPath) [][2]float64 {
	var pts [][2]float64
	for _, ph := range paths {
		if strings.Contains(ph.style, "#000000") || strings.Contains(ph.style, "fill:#FFFFFF") {
			continue // axes, ticks, background
		}
		for i, pt := range ph.pts {
			pts = append(pts, pt)
			if i == 0 {
				continue
			}
			a := ph.pts[i-1]
			n := int(math.Hypot(pt[0]-a[0], pt[1]-a[1]) * 2)
			for k := 1; k < n; k++ {
				f := float64(k) / float64(n)
				pts = append(pts, [2]float64{a[0] + f*(pt[0]-a[0]), a[1] + f*(pt[1]-a[1])})
			}
		}
	}
	return pts
}

// No legend text covers any point of any mark, line, bar or band, with
// lines and marks through the top and bottom of each plot area and both
// ends of its x axis, where the legends used to sit; and the marks stay
// inside the axes.
func TestLegendsClearOfData(t *testing.T) {
	r, sig := crowdedReport()
	for _, tc := range []figCase{
		{"profiles", func() (*Figure, error) { return Profiles(r) }, profilesLegend},
		{"sweep", func() (*Figure, error) { return Sweep(r) }, sweepLegend},
		{"signal", func() (*Figure, error) { return Signal(sig) }, signalLegend},
		{"budget", func() (*Figure, error) { return Budget(crowdedBudget()) }, []string{"units", "columns", "one-wording", "adaptive", "adaptive-one-wording", "full − 0.005"}},
		{"curve", func() (*Figure, error) { return Curve(crowdedCurve(), "Learning curve") }, []string{"vanilla", "prism", "gain"}},
	} {
		p := tc.figure(t)
		if tc.name != "budget" { // its dashed full − tolerance line spans the whole x axis
			checkInside(t, "crowded "+tc.name, p, tc.legend...)
		}
		_, _, paths, texts := parseSVG(t, figureSVG(t, p))
		pts := dataPoints(paths)
		var seen []string
		for _, tx := range texts {
			if !slices.Contains(tc.legend, tx.text) || tx.rotated {
				continue
			}
			seen = append(seen, tx.text)
			x0, y0, x1, y1 := textBox(tx, p)
			for _, pt := range pts {
				if pt[0] >= x0 && pt[0] <= x1 && pt[1] >= y0 && pt[1] <= y1 {
					t.Errorf("%s: legend %q (%.1f..%.1f × %.1f..%.1f) covers the mark at (%.1f, %.1f)", tc.name, tx.text, x0, x1, y0, y1, pt[0], pt[1])
					break
				}
			}
		}
		slices.Sort(seen)
		want := slices.Clone(tc.legend)
		slices.Sort(want)
		if !slices.Equal(seen, want) {
			t.Errorf("%s: legend texts %q, want %q", tc.name, seen, want)
		}
	}
}
