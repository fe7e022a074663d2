package figures

import (
	"bytes"
	"encoding/xml"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/signal"
)

// issueReport holds the values of issue 17's figures whose whiskers were
// clipped: grounding's a_k reaches +0.16 and coverage's e_k −0.18 (the
// ends of the axis), and grounding's signal interval ends at 1.91.
func issueReport() (*calib.Report, *signal.Report) {
	r := tinyReport()
	r.Profiles = map[string]*calib.Profile{
		"grounding": {A: calib.ProfileStat{Mean: 0.08, Min: 0.02, Max: 0.16}, E: calib.ProfileStat{Mean: 0.01, Min: -0.05, Max: 0.06}},
		"coverage":  {A: calib.ProfileStat{Mean: 0.03, Min: -0.02, Max: 0.09}, E: calib.ProfileStat{Mean: -0.1, Min: -0.18, Max: -0.04}},
	}
	sig := &signal.Report{Units: []signal.Unit{
		{Name: "grounding", Ratio: 1.4, CI: [2]float64{1.05, 1.91}, Pass: true},
		{Name: "coverage", Ratio: 0.9, CI: [2]float64{0.6, 1.2}},
	}}
	return r, sig
}

// svgPath is one <path> of a figure: its points in the figure's
// coordinates (y up, as gonum draws) and its style.
type svgPath struct {
	pts   [][2]float64
	style string
}

type svgText struct {
	x, y    float64 // baseline start, y up
	text    string
	rotated bool // an axis label drawn sideways
}

// parseSVG reads the paths and texts of a gonum SVG figure.
func parseSVG(t *testing.T, b []byte) (w, h float64, paths []svgPath, texts []svgText) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	var cur *svgText
	var groups []bool // per open <g>: whether it rotates
	rotated := func() bool { return slices.Contains(groups, true) }
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch el := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range el.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch el.Name.Local {
			case "g":
				groups = append(groups, strings.Contains(attr["transform"], "rotate"))
			case "svg":
				vb := strings.Fields(attr["viewBox"])
				w, _ = strconv.ParseFloat(vb[2], 64)
				h, _ = strconv.ParseFloat(vb[3], 64)
			case "path":
				paths = append(paths, svgPath{pts: pathPoints(t, attr["d"]), style: attr["style"]})
			case "text":
				x, _ := strconv.ParseFloat(attr["x"], 64)
				y, _ := strconv.ParseFloat(attr["y"], 64)
				texts = append(texts, svgText{x: x, y: -y, rotated: rotated() || strings.Contains(attr["transform"], "rotate")}) // drawn flipped by scale(1, -1)
				cur = &texts[len(texts)-1]
			}
		case xml.CharData:
			if cur != nil {
				cur.text += string(el)
			}
		case xml.EndElement:
			switch el.Name.Local {
			case "text":
				cur = nil
			case "g":
				groups = groups[:len(groups)-1]
			}
		}
	}
	if w == 0 || h == 0 {
		t.Fatal("no viewBox")
	}
	return w, h, paths, texts
}

// pathPoints are the points a path's M, L and A commands reach (for an
// arc, its end; gonum's circles are two half arcs, so both sides count).
func pathPoints(t *testing.T, d string) [][2]float64 {
	t.Helper()
	f := strings.FieldsFunc(d, func(r rune) bool { return r == ',' || r == ' ' })
	var toks []string
	for _, s := range f {
		// split command letters from numbers: "M1.5" "L2" "A2.5"
		for s != "" {
			if strings.ContainsRune("MLAZ", rune(s[0])) {
				toks = append(toks, s[:1])
				s = s[1:]
				continue
			}
			i := strings.IndexAny(s, "MLAZ")
			if i < 0 {
				toks, s = append(toks, s), ""
			} else {
				toks, s = append(toks, s[:i]), s[i:]
			}
		}
	}
	var pts [][2]float64
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("path %q: %v", d, err)
		}
		return v
	}
	for i := 0; i < len(toks); {
		switch toks[i] {
		case "M", "L":
			pts = append(pts, [2]float64{num(toks[i+1]), num(toks[i+2])})
			i += 3
		case "A":
			pts = append(pts, [2]float64{num(toks[i+6]), num(toks[i+7])})
			i += 8
		case "Z":
			i++
		default:
			t.Fatalf("path %q: unexpected %q", d, toks[i])
		}
	}
	return pts
}

// checkInside fails unless every coloured mark of the figure lies inside
// its plot area, at least 1pt from the ends of the x axis and above it,
// and every text inside the canvas. The plot area is bounded by the x
// axis's line (the longest black horizontal path) below and at both
// ends, and by the title's baseline above.
func checkInside(t *testing.T, name string, p *Figure, legend ...string) {
	t.Helper()
	w, h, paths, texts := parseSVG(t, figureSVG(t, p))
	axisY, x0, x1 := 0.0, 0.0, 0.0
	for _, ph := range paths {
		if !strings.Contains(ph.style, "stroke:#000000") || len(ph.pts) != 2 || ph.pts[0][1] != ph.pts[1][1] {
			continue
		}
		if l := math.Abs(ph.pts[1][0] - ph.pts[0][0]); l > x1-x0 {
			axisY, x0, x1 = ph.pts[0][1], min(ph.pts[0][0], ph.pts[1][0]), max(ph.pts[0][0], ph.pts[1][0])
		}
	}
	if x1 == x0 {
		t.Fatalf("%s: no x axis line", name)
	}
	top := h
	for _, tx := range texts {
		if tx.text == p.Title.Text {
			top = tx.y
		}
		tw := p.Title.TextStyle.Width(tx.text).Points() // 12px is the widest style used
		if tx.text == p.Title.Text && (tx.x < 0 || tx.x+tw > w || tx.y < 0 || tx.y > h) {
			t.Errorf("%s: title %q at x %.1f..%.1f, y %.1f: outside the %gx%g canvas", name, tx.text, tx.x, tx.x+tw, tx.y, w, h)
		}
		if !tx.rotated && (tx.x < 0 || tx.y < 0 || tx.y > h) {
			t.Errorf("%s: text %q at (%.1f, %.1f): outside the canvas", name, tx.text, tx.x, tx.y)
		}
	}
	// A legend's sample marks sit left of its label, below the axes.
	inLegend := func(x, y float64) bool {
		for _, tx := range texts {
			if slices.Contains(legend, tx.text) && x < tx.x && x > tx.x-p.Legend.ThumbnailWidth.Points()-4 && y > tx.y-4 && y < tx.y+12 {
				return true
			}
		}
		return false
	}
	marks := 0
	for _, ph := range paths {
		if strings.Contains(ph.style, "#000000") || strings.Contains(ph.style, "fill:#FFFFFF") {
			continue // axes, ticks, background
		}
		ref := strings.Contains(ph.style, "#808080") // a reference line may span the whole height
		for _, pt := range ph.pts {
			marks++
			x, y := pt[0], pt[1]
			if inLegend(x, y) {
				continue
			}
			lowY := axisY + 1
			if ref {
				lowY = axisY - 0.01
			}
			if x < x0+1 || x > x1-1 || y < lowY || y > top {
				t.Errorf("%s: mark (%.2f, %.2f) [%s] outside the plot area x %.2f..%.2f, y %.2f..%.2f", name, x, y, ph.style, x0, x1, axisY, top)
			}
		}
	}
	if marks == 0 {
		t.Errorf("%s: no marks", name)
	}
}

// figCase is a figure to check and its legend's labels.
type figCase struct {
	name   string
	make   func() (*Figure, error)
	legend []string
}

func (tc figCase) figure(t *testing.T) *Figure {
	t.Helper()
	f, err := tc.make()
	if err != nil {
		t.Fatalf("%s: %v", tc.name, err)
	}
	return f
}

var (
	profilesLegend = []string{"a_k (directional)", "e_k (shared)"}
	sweepLegend    = []string{"prism", "alpha_prism", "half", "taylor", "vanilla"}
	signalLegend   = []string{"ratio"}
)

// Every mark of every figure lies inside the axes, with the values of
// the issue that clipped them, and the titles lie inside the canvas.
func TestFiguresMarksInsideAxes(t *testing.T) {
	r, sig := issueReport()
	for _, tc := range []figCase{
		{"profiles", func() (*Figure, error) { return Profiles(r) }, profilesLegend},
		{"sweep", func() (*Figure, error) { return Sweep(r) }, sweepLegend},
		{"signal", func() (*Figure, error) { return Signal(sig) }, signalLegend},
		{"tiny profiles", func() (*Figure, error) { return Profiles(tinyReport()) }, profilesLegend},
		{"tiny signal", func() (*Figure, error) { return Signal(tinySignal()) }, signalLegend},
	} {
		p := tc.figure(t)
		checkInside(t, tc.name, p, tc.legend...)
	}
}

// The axes of the issue's figures reach past their extreme marks.
func TestFigureAxesSpanMarks(t *testing.T) {
	r, sig := issueReport()
	p, err := Profiles(r)
	if err != nil {
		t.Fatal(err)
	}
	if !(p.X.Min < -0.18 && p.X.Max > 0.16) {
		t.Errorf("profiles x axis %g..%g does not reach past -0.18..0.16", p.X.Min, p.X.Max)
	}
	s, err := Signal(sig)
	if err != nil {
		t.Fatal(err)
	}
	if !(s.X.Min < 0.6 && s.X.Max > 1.91) {
		t.Errorf("signal x axis %g..%g does not reach past 0.6..1.91", s.X.Min, s.X.Max)
	}
}

// The PNG of the issue's figures decodes at the figure's size at
// pngDPI: 1,500 × 1,050 px, at least the 1,200 px wide a paper or a slide
// needs.
func TestFigurePNGDecodes(t *testing.T) {
	r, _ := issueReport()
	p, err := Profiles(r)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "p.png")
	if err := p.save(path); err != nil {
		t.Fatal(err)
	}
	w, h := pngSize(t, path)
	if w != int(math.Round(figW.Dots(pngDPI))) || h != int(math.Round(figH.Dots(pngDPI))) || w < minPNGWidth {
		t.Errorf("PNG %dx%d, want %vx%v at %d dpi, at least %d px wide", w, h, figW, figH, pngDPI, minPNGWidth)
	}
}
