package cli

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/prism-eval/prism/calib/figures"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// The figures exported by the CLI equal the TUI's for the same fit:
// prism fit --figures and the Fit tab's e both write figures.ExportStudy
// of the study's planned runs (the screen's extra runs in neither), with
// Table 2 from the judge's rubric ratings. The fit's defaults are the
// tab's, so the reports are the same.
func TestFitFiguresEqualFitTabExport(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "quality", "--backend", "offline")
	clitest.MustRun(t, "run", "--workspace", ws, "--rubric", "saja-broad")
	clitest.MustRun(t, "screen", "--workspace", ws, "--bank", "quality", "--backend", "offline") // extra runs: neither reads them

	// The TUI first: the CLI's fit would be the stored fit it opens on.
	app := openApp(t, ws)
	for _, k := range []string{"5", "f", "e"} {
		_, cmd := app.Update(tea.KeyPressMsg{Code: rune(k[0]), Text: k})
		drive(app, cmd)
	}
	_, cmd := app.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	drive(app, cmd)
	tuiDir := filepath.Join(dir, "prism-figures") // the tab's default, beside the workspace

	cliDir := filepath.Join(dir, "cli")
	_, errOut := clitest.MustRun(t, "fit", "--workspace", ws, "--judge", "offline", "--figures", cliDir)
	var listed []string
	for _, l := range strings.Split(errOut, "\n") {
		if p, ok := strings.CutPrefix(l, "prism fit: wrote "); ok {
			listed = append(listed, filepath.Base(p))
		}
	}
	want := []string{"report.json", "report.csv", "profiles.csv", "profiles.png", "profiles.svg", "sweep.png", "sweep.svg",
		"signal.png", "signal.svg", figures.Table2File}
	if !slices.Equal(listed, want) {
		t.Fatalf("prism fit --figures listed %q, want %q (stderr %s)", listed, want, errOut)
	}
	if names := dirNames(t, tuiDir); !slices.Equal(names, dirNames(t, cliDir)) {
		t.Fatalf("the Fit tab exported %q, prism fit --figures %q", names, dirNames(t, cliDir))
	}
	for _, name := range want {
		a, b := readFile(t, filepath.Join(cliDir, name)), readFile(t, filepath.Join(tuiDir, name))
		if bytes.Equal(a, b) {
			continue
		}
		if filepath.Ext(name) == ".png" && samePixels(t, a, b) {
			continue
		}
		t.Errorf("%s: prism fit --figures wrote %d bytes, the Fit tab %d, not the same", name, len(a), len(b))
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// samePixels says two PNGs decode to the same pixels.
func samePixels(t *testing.T, a, b []byte) bool {
	t.Helper()
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if ia.Bounds() != ib.Bounds() {
		return false
	}
	r := ia.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if !sameColor(ia, ib, image.Pt(x, y)) {
				return false
			}
		}
	}
	return true
}

func sameColor(a, b image.Image, p image.Point) bool {
	r1, g1, b1, a1 := a.At(p.X, p.Y).RGBA()
	r2, g2, b2, a2 := b.At(p.X, p.Y).RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}
