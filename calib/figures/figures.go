// Package figures writes a calibration study for a paper from calib's
// reports: the fit report (calib.Report) as JSON and CSV, and the
// correction-profile (paper Fig. 4a, 9), γ-sweep (Fig. 4b) and
// signal-ratio (Fig. 2, from signal.Report) figures as PNG and SVG
// with gonum/plot; so are the budget and learning curves. Every figure is
// 5 × 3.5 in, its PNG at 300 dpi (1,500 × 1,050 px), its legend in rows
// below the axes (Figure); with rubric baselines, the paper's Table 2 as
// CSV (Table2CSV). It is report export, not UI: ExportStudy is what the
// Fit tab's e and prism fit --figures both write.
package figures

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/prism-eval/prism/calib/signal"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
)

var (
	colA    = color.RGBA{R: 0x82, G: 0x50, B: 0xdf, A: 0xff}
	colE    = color.RGBA{R: 0x1a, G: 0x7f, B: 0x37, A: 0xff}
	colH    = color.RGBA{R: 0x9a, G: 0x67, B: 0x00, A: 0xff}
	colT    = color.RGBA{R: 0xcf, G: 0x22, B: 0x2e, A: 0xff}
	colGrey = color.Gray{Y: 0x80}
)

// Export writes into dir (created if needed) report.json (the JSON of
// `prism fit --json`), report.csv (one row per method), profiles.csv (one
// row per attribute and component), profiles.{png,svg} and sweep.{png,svg}
// from r, signal.{png,svg} from sig when it is not nil, and table2.csv
// (Table2CSV) when r has rubric baselines. It returns the paths written,
// in that order.
func Export(dir string, r *calib.Report, sig *signal.Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	write := func(name string, f func(string) error) error {
		p := filepath.Join(dir, name)
		if err := f(p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		paths = append(paths, p)
		return nil
	}
	if err := write("report.json", func(p string) error { return writeJSON(p, r) }); err != nil {
		return paths, err
	}
	if err := write("report.csv", func(p string) error { return writeCSV(p, MethodRows(r)) }); err != nil {
		return paths, err
	}
	if err := write("profiles.csv", func(p string) error { return writeCSV(p, ProfileRows(r)) }); err != nil {
		return paths, err
	}
	figs := []struct {
		name string
		make func() (*Figure, error)
	}{
		{"profiles", func() (*Figure, error) { return Profiles(r) }},
		{"sweep", func() (*Figure, error) { return Sweep(r) }},
	}
	if sig != nil {
		figs = append(figs, struct {
			name string
			make func() (*Figure, error)
		}{"signal", func() (*Figure, error) { return Signal(sig) }})
	}
	for _, fg := range figs {
		f, err := fg.make()
		if err != nil {
			return paths, fmt.Errorf("%s figure: %w", fg.name, err)
		}
		for _, ext := range []string{".png", ".svg"} {
			if err := write(fg.name+ext, f.save); err != nil {
				return paths, err
			}
		}
	}
	if len(r.Baselines) > 0 {
		err := write(Table2File, func(p string) error { return writeCSV(p, Table2CSV(r)) })
		return paths, err
	}
	return paths, nil
}

func writeJSON(path string, v any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeCSV(path string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if err := w.WriteAll(rows); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ff prints a float in its shortest round-tripping form; NaN prints "".
func ff(f float64) string {
	if math.IsNaN(f) {
		return ""
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// methodKeys are the report's methods in report order.
var methodKeys = []calib.Method{calib.Vanilla, calib.PRISM, calib.AlphaPRISM, calib.Half, calib.Taylor}

// MethodRows is report.csv: a header, then per method of r its metric,
// mean, 95% interval and paired difference from Vanilla with its interval
// (empty for Vanilla).
func MethodRows(r *calib.Report) [][]string {
	rows := [][]string{{"method", "metric", "mean", "ci_low", "ci_high", "diff_vs_vanilla", "diff_ci_low", "diff_ci_high"}}
	for _, m := range methodKeys {
		res := r.Methods.Get(m)
		if res == nil {
			continue
		}
		row := []string{m.String(), r.Metric, ff(res.Mean), ff(res.CI[0]), ff(res.CI[1]), "", "", ""}
		if d := res.DiffVsVanilla; d != nil {
			row[5], row[6], row[7] = ff(d.Mean), ff(d.CI[0]), ff(d.CI[1])
		}
		rows = append(rows, row)
	}
	return rows
}

// ProfileRows is profiles.csv: a header, then per attribute (sorted) its
// a and e statistics: mean, min, max over folds, sign stability, and the
// value of each fold.
func ProfileRows(r *calib.Report) [][]string {
	attrs := sortedAttrs(r)
	head := []string{"attribute", "component", "mean", "min", "max", "sign_stable"}
	for i := range r.Folds {
		head = append(head, fmt.Sprintf("fold_%d", i+1))
	}
	rows := [][]string{head}
	for _, a := range attrs {
		p := r.Profiles[a]
		for _, c := range []struct {
			name string
			s    calib.ProfileStat
		}{{"a", p.A}, {"e", p.E}} {
			row := []string{a, c.name, ff(c.s.Mean), ff(c.s.Min), ff(c.s.Max), strconv.Itoa(c.s.SignStable)}
			for _, f := range c.s.Folds {
				row = append(row, ff(f))
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func sortedAttrs(r *calib.Report) []string {
	attrs := make([]string, 0, len(r.Profiles))
	for a := range r.Profiles {
		attrs = append(attrs, a)
	}
	slices.Sort(attrs)
	return attrs
}

// rangeBars are points with an x interval [lo, hi] around each.
type rangeBars struct {
	plotter.XYs
	plotter.XErrors
}

// forest draws, at heights ys, a point at each x with a bar over [lo, hi].
func forest(f *Figure, name string, c color.Color, xs, los, his, ys []float64) error {
	rb := rangeBars{XYs: make(plotter.XYs, len(xs)), XErrors: make(plotter.XErrors, len(xs))}
	for i := range xs {
		rb.XYs[i] = plotter.XY{X: xs[i], Y: ys[i]}
		rb.XErrors[i].Low, rb.XErrors[i].High = xs[i]-los[i], his[i]-xs[i]
	}
	bars, err := plotter.NewXErrorBars(rb)
	if err != nil {
		return err
	}
	bars.Color = c
	pts, err := plotter.NewScatter(rb.XYs)
	if err != nil {
		return err
	}
	pts.Color = c
	f.Add(bars, pts)
	f.addLegend(name, pts)
	return nil
}

// pad is the room left on each side of the marks, as a fraction of
// their span, so that no whisker, cap or glyph sits on an axis's end.
const pad = 0.08

// padded is the axis range [lo, hi] of marks spanning vs: every value,
// whisker end and reference line inside, with room on both sides.
func padded(vs ...float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo > hi { // no marks
		return -1, 1
	}
	d := (hi - lo) * pad
	if d == 0 {
		d = max(math.Abs(lo)*pad, 0.1)
	}
	return lo - d, hi + d
}

// paddedLog is padded on a log scale: the room is a fraction of the span
// of the logarithms (all of vs must be positive).
func paddedLog(vs ...float64) (lo, hi float64) {
	logs := make([]float64, 0, len(vs))
	for _, v := range vs {
		if v > 0 {
			logs = append(logs, math.Log(v))
		}
	}
	if len(logs) == 0 {
		return 0.1, 10
	}
	l, h := padded(logs...)
	return math.Exp(l), math.Exp(h)
}

// refLine is a vertical line at x over heights [y0, y1].
func refLine(x, y0, y1 float64) (*plotter.Line, error) {
	l, err := plotter.NewLine(plotter.XYs{{X: x, Y: y0}, {X: x, Y: y1}})
	if err != nil {
		return nil, err
	}
	l.Color = colGrey
	l.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	return l, nil
}

// Profiles is the correction-profile forest plot (paper Fig. 4a, 9): per
// attribute, a_k and e_k as the mean over outer folds with the fold range,
// and a dashed line at zero.
func Profiles(r *calib.Report) (*Figure, error) {
	attrs := sortedAttrs(r)
	f := newFigure()
	p := f.Plot
	p.Title.Text = "Correction profiles (PRISM, " + strconv.Itoa(len(r.Folds)) + " folds)" + studyCaption(r.Study)
	p.X.Label.Text = "value (mean over folds, bar: min–max)"
	n := len(attrs)
	var ax, alo, ahi, ay, ex, elo, ehi, ey []float64
	for i, a := range attrs {
		pr := r.Profiles[a]
		y := float64(n - 1 - i) // the first attribute on top
		ax, alo, ahi, ay = append(ax, pr.A.Mean), append(alo, pr.A.Min), append(ahi, pr.A.Max), append(ay, y+0.15)
		ex, elo, ehi, ey = append(ex, pr.E.Mean), append(elo, pr.E.Min), append(ehi, pr.E.Max), append(ey, y-0.15)
	}
	if n > 0 {
		if err := forest(f, "a_k (directional)", colA, ax, alo, ahi, ay); err != nil {
			return nil, err
		}
		if err := forest(f, "e_k (shared)", colE, ex, elo, ehi, ey); err != nil {
			return nil, err
		}
	}
	zero, err := refLine(0, -0.5, float64(n)-0.5)
	if err != nil {
		return nil, err
	}
	p.Add(zero)
	// The axis spans every mark: means, both ends of every bar, and zero.
	p.X.Min, p.X.Max = padded(slices.Concat(ax, alo, ahi, ex, elo, ehi, []float64{0})...)
	names := make([]string, n)
	for i, a := range attrs {
		names[n-1-i] = a
	}
	p.NominalY(names...)
	return f, nil
}

// Sweep is the γ sweep (paper Fig. 4b): per fitted method, the
// out-of-fold mean at each fixed γ (log axis), with Vanilla's mean as a
// dashed line.
func Sweep(r *calib.Report) (*Figure, error) {
	f := newFigure()
	p := f.Plot
	p.Title.Text = "γ sweep" + studyCaption(r.Study)
	p.X.Label.Text = "γ (relative ridge penalty)"
	p.Y.Label.Text = "mean " + r.Metric
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	var gs, vs []float64 // every mark's γ and value, for the axes
	for i, m := range []calib.Method{calib.PRISM, calib.AlphaPRISM, calib.Half, calib.Taylor} {
		if r.Methods.Get(m) == nil {
			continue
		}
		xys := make(plotter.XYs, 0, len(r.GammaGrid))
		for _, g := range r.GammaGrid {
			if v, ok := r.Sweep[calib.GammaKey(g)][m.String()]; ok && !math.IsNaN(v) {
				xys = append(xys, plotter.XY{X: g, Y: v})
				gs, vs = append(gs, g), append(vs, v)
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, s, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		c := []color.Color{colA, colE, colH, colT}[i]
		l.Color, s.Color = c, c
		p.Add(l, s)
		f.addLegend(m.String(), l, s)
	}
	if len(r.GammaGrid) > 0 && r.Methods.Vanilla != nil {
		lo, hi := slices.Min(r.GammaGrid), slices.Max(r.GammaGrid)
		van, err := plotter.NewLine(plotter.XYs{{X: lo, Y: r.Methods.Vanilla.Mean}, {X: hi, Y: r.Methods.Vanilla.Mean}})
		if err != nil {
			return nil, err
		}
		van.Color, van.Dashes = colGrey, []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(van)
		f.addLegend("vanilla", van)
		gs, vs = append(gs, lo, hi), append(vs, r.Methods.Vanilla.Mean)
	}
	if len(gs) > 0 {
		p.X.Min, p.X.Max = paddedLog(gs...)
		p.Y.Min, p.Y.Max = padded(vs...)
	}
	return f, nil
}

// Signal is the signal-ratio figure (paper Fig. 2): per unit, the ratio
// of its displacement RMS to the neutral reference with its 95% interval,
// and a dashed line at 1 (no more than the neutral clauses move).
func Signal(s *signal.Report) (*Figure, error) {
	f := newFigure()
	p := f.Plot
	p.Title.Text = "Signal ratio (RMS / neutral RMS, 95% CI)"
	p.X.Label.Text = "ratio (" + poolingLabel(s.Pooling) + ")"
	n := len(s.Units)
	var xs, los, his, ys []float64
	names := make([]string, n)
	for i, u := range s.Units {
		names[n-1-i] = u.Name
		if u.TooFew {
			// No verdict, so no interval to read one from.
			names[n-1-i] = u.Name + " (too few)"
			continue
		}
		if math.IsNaN(u.Ratio) || math.IsNaN(u.CI[0]) || math.IsNaN(u.CI[1]) {
			continue // no neutral reference: nothing to draw
		}
		y := float64(n - 1 - i)
		xs, los, his, ys = append(xs, u.Ratio), append(los, u.CI[0]), append(his, u.CI[1]), append(ys, y)
	}
	if len(xs) > 0 {
		if err := forest(f, "ratio", colA, xs, los, his, ys); err != nil {
			return nil, err
		}
	}
	one, err := refLine(1, -0.5, float64(n)-0.5)
	if err != nil {
		return nil, err
	}
	p.Add(one)
	// The axis spans every ratio, both ends of every interval, and 1.
	p.X.Min, p.X.Max = padded(slices.Concat(xs, los, his, []float64{1})...)
	p.NominalY(names...)
	return f, nil
}

// poolingLabel says how a signal report pooled wordings.
func poolingLabel(p string) string {
	if p == signal.PoolingPerWording {
		return "each wording pooled separately"
	}
	return "wordings averaged within sign and run"
}

// studyCaption names a figure's study under its title (none for scores
// from files): dataset, judge, bank and scale, runs.
func studyCaption(s *model.Study) string {
	if s == nil {
		return ""
	}
	return "\n" + s.Caption()
}
