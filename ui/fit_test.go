package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/tabs/profiles"
	"github.com/prism-eval/prism/ui/widgets"
)

func TestValueAxis(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	for _, tc := range []struct {
		vals   []float64
		lo, hi float64
	}{
		// Span 0.6 - 0.4 = 0.2, padded by 0.01 each side; 0 is not forced in.
		{[]float64{0.4, 0.5, 0.6, math.NaN()}, 0.39, 0.61},
		{[]float64{0.3, 0.3}, 0.29, 0.31},
		{[]float64{math.Inf(1)}, -0.01, 0.01},
	} {
		lo, hi := widgets.ValueAxis(tc.vals...)
		if math.Abs(lo-tc.lo) > tol || math.Abs(hi-tc.hi) > tol {
			t.Errorf("valueAxis(%v) = [%g, %g], want [%g, %g]", tc.vals, lo, hi, tc.lo, tc.hi)
		}
	}
}

// fittedDemo screens the demo bank (so the workspace holds answers for
// every candidate) and fits it on the Fit tab with the given metric
// keys; it returns the App and calib.Fit's report on the same answers,
// which is what `prism fit --json --judge J --bank B` computes.
func fittedDemo(t testing.TB, w, h int, metricKeys ...string) (*App, *calib.Report) {
	t.Helper()
	a := fixtureApp(t, fixtureScreened, w, h)
	press(a, "5")
	press(a, metricKeys...)
	press(a, "f")
	if a.fit.Job().Job != nil || a.fit.Err() != nil || a.fit.Report() == nil {
		t.Fatalf("fit: busy %v, err %v", a.fit.Job().Job != nil, a.fit.Err())
	}
	rows, labels := screenedInput(t, a)
	rep, _, err := calib.Fit(context.Background(), rows, labels, a.fit.Options())
	if err != nil {
		t.Fatal(err)
	}
	return a, rep
}

// screenedInput is what `prism fit --judge J --bank B` reads from the
// screened demo workspace (store.FitInput), read once per test binary; it
// checks that a's fit read the same.
func screenedInput(t testing.TB, a *App) ([]model.ScoreRow, []model.Label) {
	t.Helper()
	screenedRef.once.Do(func() {
		k, _ := a.currentKey()
		rows, labels, err := a.study.Store.FitInput(context.Background(), k.Dataset, k.Judge, k.BankHash)
		if err == nil {
			if _, dropped := model.ScoredLabels(rows, labels); dropped != 0 {
				err = fmt.Errorf("%d labels without answers; the demo screen should cover every candidate", dropped)
			}
		}
		screenedRef.rows, screenedRef.labels, screenedRef.err = rows, labels, err
	})
	if screenedRef.err != nil {
		t.Fatal(screenedRef.err)
	}
	want, _, err := calib.BuildDesign(screenedRef.rows, screenedRef.labels, calib.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := a.fit.Design()
	if got == nil || !slices.Equal(got.Contexts, want.Contexts) || !slices.Equal(got.Columns, want.Columns) ||
		!slices.Equal(got.S0, want.S0) || !slices.Equal(got.Human, want.Human) {
		t.Fatal("the Fit tab's design is not the one of the workspace's answers and labels")
	}
	return screenedRef.rows, screenedRef.labels
}

var screenedRef struct {
	once   sync.Once
	rows   []model.ScoreRow
	labels []model.Label
	err    error
}

// The numbers on the Fit tab are those of calib.Fit on the workspace's
// answers, formatted as the screen formats them: means and intervals,
// differences from Vanilla, γ and α per fold, and the sweep.
func TestFitScreenMatchesFit(t *testing.T) {
	t.Parallel()
	for _, metricKeys := range [][]string{nil, {"m"}, {"t"}} {
		a, rep := fittedDemo(t, 160, 48, metricKeys...)
		f := frame(a)
		if taylor := slices.Contains(metricKeys, "t"); (rep.Methods.Taylor != nil) != taylor || strings.Contains(f, "Diag. Taylor") != taylor {
			t.Errorf("keys %v: Taylor in the report %v, on screen %v", metricKeys, rep.Methods.Taylor != nil, strings.Contains(f, "Diag. Taylor"))
		}
		if !strings.Contains(f, "Fit · "+rep.Metric+" · 12 contexts · 60 candidates") {
			t.Errorf("title lacks metric %s:\n%s", rep.Metric, f)
		}
		for _, fm := range analysis.Methods {
			res := rep.Methods.Get(fm.M)
			if res == nil {
				continue
			}
			want := fmt.Sprintf("%s [%s, %s]", widgets.Mean4(res.Mean), widgets.Mean4(res.CI[0]), widgets.Mean4(res.CI[1]))
			if d := res.DiffVsVanilla; d != nil {
				want += fmt.Sprintf(" %s [%s, %s]", widgets.Gain4(d.Mean), widgets.Gain4(d.CI[0]), widgets.Gain4(d.CI[1]))
			}
			line := paneRow(f, 0, fm.Label+" ")
			if !strings.Contains(strings.Join(strings.Fields(line), " "), want) {
				t.Errorf("%s %s row %q lacks %q", rep.Metric, fm.Label, line, want)
			}
		}
		var gammas, alphas []string
		for _, fold := range rep.Folds {
			gammas = append(gammas, fmt.Sprintf("%g", fold.PRISM.Gamma))
			alphas = append(alphas, fmt.Sprintf("%.3f", fold.AlphaPRISM.Alpha))
		}
		if _, rest, _ := strings.Cut(f, "γ per outer fold"); paneRow(rest, 0, "PRISM ") == "" ||
			strings.Join(strings.Fields(paneRow(rest, 0, "PRISM ")), " ") != "PRISM "+strings.Join(gammas, " ") {
			t.Errorf("γ row %q, want γ %v", paneRow(rest, 0, "PRISM "), gammas)
		}
		if line := paneRow(f, 0, "  α  "); strings.Join(strings.Fields(line), " ") != "α "+strings.Join(alphas, " ") {
			t.Errorf("α row %q, want %v", line, alphas)
		}
		for _, g := range rep.GammaGrid {
			want := widgets.Mean4(rep.Sweep[calib.GammaKey(g)]["prism"])
			if line := paneRow(f, 1, fmt.Sprintf("%-6g ", g)); !strings.HasSuffix(line, " "+want) {
				t.Errorf("sweep row γ=%g %q lacks PRISM %s", g, line, want)
			}
		}
		// The Profiles tab: each attribute's means and sign stability,
		// and the exact values of the selected one.
		press(a, "6")
		f = frame(a)
		for name, p := range rep.Profiles {
			n := len(p.A.Folds)
			line := paneRow(f, 0, name+" ")
			if !strings.Contains(line, " "+widgets.Gain4(p.A.Mean)+" ") || !strings.Contains(line, " "+widgets.Gain4(p.E.Mean)+" ") ||
				!strings.HasSuffix(line, fmt.Sprintf(" %8s %8s", fmt.Sprintf("%d/%d", p.A.SignStable, n), fmt.Sprintf("%d/%d", p.E.SignStable, n))) {
				t.Errorf("profile row %q: want a %s, e %s, stable %d %d", line, widgets.Gain4(p.A.Mean), widgets.Gain4(p.E.Mean), p.A.SignStable, p.E.SignStable)
			}
		}
		sel := a.prof.Selected()
		if want := profiles.StatText("a_k", rep.Profiles[sel].A); !strings.Contains(f, want) {
			t.Errorf("profiles screen lacks the exact values %q:\n%s", want, f)
		}
	}
}

// paneRow is the first row of pane i (0 the left) of frame f whose text,
// with the border and padding removed and trailing blanks trimmed, starts
// with prefix, or "".
func paneRow(f string, i int, prefix string) string {
	for _, ln := range strings.Split(f, "\n") {
		parts := strings.Split(ln, "││")
		if i >= len(parts) {
			continue
		}
		cell := strings.TrimSuffix(strings.TrimPrefix(parts[i], "│"), "│")
		cell = strings.TrimRight(strings.TrimPrefix(cell, " "), " ")
		if strings.HasPrefix(cell, prefix) {
			return cell
		}
	}
	return ""
}

// Golden frames of the Fit and Profiles tabs on the screened demo:
// before a fit, after it (the end of the Fit tab scrolled into view),
// with the diagonal Taylor correction,
// the profiles by name and by magnitude with the second row selected, and
// the Compare tab with the demo's single judge.
func TestGoldenFit(t *testing.T) {
	t.Parallel()
	a := fixtureApp(t, fixtureScreened, goldenSizes[0][0], goldenSizes[0][1])
	g := goldenFrames{}
	press(a, "5")
	g.capture(a, "fit-empty")
	press(a, "f")
	g.capture(a, "fit")
	press(a, "G")
	g.capture(a, "fit-bottom")
	press(a, "t", "g")
	g.capture(a, "fit-taylor")
	press(a, "t")
	press(a, "6")
	g.capture(a, "profiles")
	press(a, "o", "down")
	g.capture(a, "profiles-sorted")
	press(a, "8", "c") // the demo has one judge: nothing to compare yet
	g.capture(a, "compare-one-judge")
	g.check(t)
}

// e on the Fit tab writes the report and the figures of the fit to the
// export directory; the figures decode (the decoding itself is tested in
// package figures) and report.json is the report on screen.
func TestFitExport(t *testing.T) {
	t.Parallel()
	a, rep := fittedDemo(t, 80, 24)
	a.fit.SetExportDir(filepath.Join(t.TempDir(), "export"))
	press(a, "e", "enter") // e asks where, holding the last directory
	want := fmt.Sprintf("exported 9 files (report JSON, CSV, figures PNG, SVG) to %s", a.fit.ExportDir())
	if fitStatus(a) != want || fitStatusErr(a) {
		t.Fatalf("status %q, want %q", fitStatus(a), want)
	}
	for _, name := range []string{"profiles.png", "sweep.png", "signal.png"} {
		f, err := os.Open(filepath.Join(a.fit.ExportDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		f.Close()
	}
	b, err := os.ReadFile(filepath.Join(a.fit.ExportDir(), "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back calib.Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Methods.PRISM.Mean != rep.Methods.PRISM.Mean || back.Methods.PRISM.CI != rep.Methods.PRISM.CI {
		t.Errorf("report.json PRISM %+v, want %+v", back.Methods.PRISM, rep.Methods.PRISM)
	}
}

// The analysis tabs are redrawn on every message: the cost of one
// 160×48 frame of Fit, Profiles and Inspect on the fitted demo, and of
// Compare on the two-judge fixture.
func BenchmarkFitScreenView(b *testing.B) {
	for _, tc := range []struct {
		name string
		keys []string
	}{
		{"fit", []string{"5"}},
		{"profiles", []string{"6"}},
		{"inspect", []string{"1", "down", "right", "down", "enter"}},
		{"compare", []string{"8", "c"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var a *App
			if tc.name == "compare" {
				a = twoJudgeDemo(b, 160, 48)
			} else {
				a, _ = fittedDemo(b, 160, 48)
			}
			press(a, tc.keys...)
			b.ReportAllocs()
			for b.Loop() {
				sinkView = a.View()
			}
		})
	}
}
