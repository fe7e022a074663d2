package figures

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/signal"

	"github.com/prism-eval/prism/calib"
)

// tinyReport is a hand-made report: two attributes, two folds, a γ grid
// of three values.
func tinyReport() *calib.Report {
	return &calib.Report{
		Metric: "spearman", Bootstrap: 10, Seed: 1, GammaGrid: []float64{0.1, 1, 10},
		NContexts: 6, NCandidates: 30, Columns: []string{"len:+", "len:-", "tone:+", "tone:-"}, Attributes: []string{"len", "tone"},
		Methods: calib.Methods{
			Vanilla:    &calib.MethodResult{Mean: 0.5, CI: [2]float64{0.4, 0.6}},
			PRISM:      &calib.MethodResult{Mean: 0.625, CI: [2]float64{0.5, 0.75}, DiffVsVanilla: &calib.Diff{Mean: 0.125, CI: [2]float64{-0.25, 0.5}}},
			AlphaPRISM: &calib.MethodResult{Mean: 0.5, CI: [2]float64{0.25, 0.75}, DiffVsVanilla: &calib.Diff{Mean: 0, CI: [2]float64{-0.5, 0.5}}},
			Half:       &calib.MethodResult{Mean: 0.375, CI: [2]float64{0.25, 0.5}, DiffVsVanilla: &calib.Diff{Mean: -0.125, CI: [2]float64{-0.25, 0}}},
		},
		Folds: []calib.Fold{{Fold: 1}, {Fold: 2}},
		Profiles: map[string]*calib.Profile{
			"tone": {A: calib.ProfileStat{Mean: -0.5, Min: -1, Max: 0, Folds: []float64{-1, 0}, SignStable: 1},
				E: calib.ProfileStat{Mean: 0.25, Min: 0.25, Max: 0.25, Folds: []float64{0.25, 0.25}, SignStable: 2}},
			"len": {A: calib.ProfileStat{Mean: 1, Min: 0.5, Max: 1.5, Folds: []float64{0.5, 1.5}, SignStable: 2},
				E: calib.ProfileStat{Mean: 0, Min: -0.5, Max: 0.5, Folds: []float64{-0.5, 0.5}, SignStable: 0}},
		},
		Sweep: map[string]map[string]float64{
			"0.1": {"prism": 0.5, "alpha_prism": 0.55, "half": 0.45},
			"1":   {"prism": 0.6, "alpha_prism": 0.5, "half": 0.4},
			"10":  {"prism": 0.625, "alpha_prism": 0.5, "half": 0.375},
		},
	}
}

func tinySignal() *signal.Report {
	return &signal.Report{Units: []signal.Unit{
		{Name: "len", Ratio: 2, CI: [2]float64{1.5, 2.5}, Pass: true},
		{Name: "tone", Ratio: 0.8, CI: [2]float64{0.5, 1.2}},
		{Name: "ctx:x", Ratio: math.NaN(), CI: [2]float64{math.NaN(), math.NaN()}},
	}}
}

// Every exported figure decodes as PNG and parses as XML with an <svg>
// root; the JSON round-trips to the report; the CSVs hold the values.
func TestExport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	r := tinyReport()
	paths, err := Export(dir, r, tinySignal())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	want := []string{"report.json", "report.csv", "profiles.csv", "profiles.png", "profiles.svg", "sweep.png", "sweep.svg", "signal.png", "signal.svg"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("wrote %v, want %v", names, want)
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(p) {
		case ".png":
			if w, h := pngSize(t, p); w < minPNGWidth || h < 100 {
				t.Errorf("%s: %dx%d image, want at least %d px wide", p, w, h, minPNGWidth)
			}
		case ".svg":
			if root, err := svgRoot(f); err != nil || root != "svg" {
				t.Errorf("%s: root %q, err %v", p, root, err)
			}
		}
		f.Close()
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back calib.Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Methods.PRISM.Mean != 0.625 || back.Profiles["len"].A.Max != 1.5 {
		t.Errorf("report.json does not round-trip: %+v", back.Methods.PRISM)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "report.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(csv), "half,spearman,0.375,0.25,0.5,-0.125,-0.25,0\n") {
		t.Errorf("report.csv:\n%s", csv)
	}
}

// minPNGWidth is the narrowest PNG a figure may be: wide enough for a
// paper's column at print resolution and for a slide.
const minPNGWidth = 1200

// pngSize decodes the PNG at path and returns its width and height in
// pixels.
func pngSize(t *testing.T, path string) (w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img.Bounds().Dx(), img.Bounds().Dy()
}

// svgRoot parses the whole document and returns its root element's name.
func svgRoot(r io.Reader) (string, error) {
	dec := xml.NewDecoder(r)
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return root, nil
		}
		if err != nil {
			return root, err
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
}

func TestProfileRows(t *testing.T) {
	got := ProfileRows(tinyReport())
	want := [][]string{
		{"attribute", "component", "mean", "min", "max", "sign_stable", "fold_1", "fold_2"},
		{"len", "a", "1", "0.5", "1.5", "2", "0.5", "1.5"},
		{"len", "e", "0", "-0.5", "0.5", "0", "-0.5", "0.5"},
		{"tone", "a", "-0.5", "-1", "0", "1", "-1", "0"},
		{"tone", "e", "0.25", "0.25", "0.25", "2", "0.25", "0.25"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ProfileRows = %v, want %v", got, want)
	}
}

func ExampleMethodRows() {
	for _, row := range MethodRows(tinyReport()) {
		fmt.Println(strings.Join(row, ","))
	}
	// Output:
	// method,metric,mean,ci_low,ci_high,diff_vs_vanilla,diff_ci_low,diff_ci_high
	// vanilla,spearman,0.5,0.4,0.6,,,
	// prism,spearman,0.625,0.5,0.75,0.125,-0.25,0.5
	// alpha_prism,spearman,0.5,0.25,0.75,0,-0.5,0.5
	// half,spearman,0.375,0.25,0.5,-0.125,-0.25,0
}
