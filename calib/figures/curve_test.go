package figures

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/curve"
)

// curveOf is a hand-made fit curve: Vanilla, PRISM and the gain at three
// sizes, narrowing with more contexts; the gain undefined at 5.
func curveOf() *curve.Curve {
	pt := func(n int, v, p, g curve.Band) curve.Point {
		s := map[string]curve.Band{"vanilla": v, "prism": p}
		if g != (curve.Band{}) {
			s["gain"] = g
		}
		return curve.Point{Contexts: n, Draws: 20, Series: s}
	}
	return &curve.Curve{Metric: "spearman", Series: []string{"vanilla", "prism", "gain"}, Total: 100, Draws: 20, Points: []curve.Point{
		pt(5, curve.Band{Median: 0.2, P10: -0.3, P90: 0.6}, curve.Band{Median: 0.25, P10: -0.2, P90: 0.7}, curve.Band{}),
		pt(20, curve.Band{Median: 0.3, P10: 0.1, P90: 0.45}, curve.Band{Median: 0.4, P10: 0.2, P90: 0.55}, curve.Band{Median: 0.1, P10: 0, P90: 0.2}),
		pt(100, curve.Band{Median: 0.31, P10: 0.31, P90: 0.31}, curve.Band{Median: 0.42, P10: 0.42, P90: 0.42}, curve.Band{Median: 0.11, P10: 0.11, P90: 0.11}),
	}}
}

// The curve's axes span every band (−0.3 … 0.7) and size (5 … 100), every
// mark lies inside them, and SaveCurve writes a PNG at least 1,200 px
// wide and an SVG and refuses other names.
func TestCurveFigure(t *testing.T) {
	c := curveOf()
	p, err := Curve(c, "Learning curve")
	if err != nil {
		t.Fatal(err)
	}
	if !(p.X.Min < 5 && p.X.Max > 100 && p.Y.Min < -0.3 && p.Y.Max > 0.7) {
		t.Errorf("axes %g..%g × %g..%g do not span 5..100 × −0.3..0.7", p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
	}
	checkInside(t, "curve", p, "vanilla", "prism", "gain")
	dir := t.TempDir()
	for _, name := range []string{"c.png", "c.svg"} {
		if err := SaveCurve(c, "Learning curve", filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if w, _ := pngSize(t, filepath.Join(dir, "c.png")); w < minPNGWidth {
		t.Errorf("PNG %d px wide, want at least %d", w, minPNGWidth)
	}
	if svg, _ := os.ReadFile(filepath.Join(dir, "c.svg")); !strings.Contains(string(svg), "<svg") {
		t.Error("no SVG written")
	}
	if err := SaveCurve(c, "x", filepath.Join(dir, "c.pdf")); err == nil || !strings.Contains(err.Error(), ".png or .svg") {
		t.Errorf("c.pdf: %v", err)
	}
}
