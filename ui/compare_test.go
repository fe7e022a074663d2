package ui

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/widgets"
)

// twoJudgeDemo is the screened demo with a second, imported judge whose
// answers are the first's with every attribute's + and − probes swapped.
// Its Jacobian is the first's with the columns of each attribute swapped
// and negated (Δ'+ = s− − s0 = −Δ−, Δ'− = s0 − s+ = −Δ+), so its ridge
// fit is β'± = −β∓ with the same predictions: the same method table,
// a'_k = −a_k (signs differ) and e'_k = e_k (signs agree).
func twoJudgeDemo(t testing.TB, w, h int) *App {
	t.Helper()
	return fixtureApp(t, fixtureTwoJudge, w, h)
}

// importSwapped imports the answers of a's judge, signs swapped, as the
// judge "swapped" (see twoJudgeDemo).
func importSwapped(a *App) error {
	rows, err := swappedRows(a)
	if err != nil {
		return err
	}
	k, _ := a.currentKey()
	_, err = a.study.Store.ImportScores(context.Background(), k.Dataset, "swapped", rows)
	return err
}

// swappedRows are the answers of a's judge with every attribute's + and −
// probes swapped.
func swappedRows(a *App) ([]model.ScoreRow, error) {
	k, _ := a.currentKey()
	rows, err := a.study.Store.Scores(context.Background(), k.Dataset, k.Judge, k.BankHash)
	if err != nil {
		return nil, err
	}
	for i, r := range rows {
		switch {
		case strings.HasSuffix(r.Probe, ":+") && !strings.HasPrefix(r.Probe, "ctx:"):
			rows[i].Probe = strings.TrimSuffix(r.Probe, "+") + "-"
		case strings.HasSuffix(r.Probe, ":-") && !strings.HasPrefix(r.Probe, "ctx:"):
			rows[i].Probe = strings.TrimSuffix(r.Probe, "-") + "+"
		}
	}
	return rows, nil
}

func TestCompareSwappedJudge(t *testing.T) {
	t.Parallel()
	a := twoJudgeDemo(t, 160, 90) // every attribute's rows in one frame
	press(a, "8", "c")
	if a.cmp.Busy() || a.cmp.Err() != nil || len(a.cmp.Fits()) != 2 {
		t.Fatalf("compare: busy %v, err %v, %d fits", a.cmp.Busy(), a.cmp.Err(), len(a.cmp.Fits()))
	}
	x, y := a.cmp.Fits()[0], a.cmp.Fits()[1]
	if x.Judge != "offline" || y.Judge != "swapped" || x.Err != nil || y.Err != nil {
		t.Fatalf("fits %s (%v), %s (%v)", x.Judge, x.Err, y.Judge, y.Err)
	}
	const tol = 1e-9
	if d := math.Abs(x.Rep.Methods.PRISM.Mean - y.Rep.Methods.PRISM.Mean); d > tol {
		t.Errorf("PRISM means differ by %g", d)
	}
	f := frame(a)
	for attr, p := range x.Rep.Profiles {
		q := y.Rep.Profiles[attr]
		if math.Abs(p.A.Mean+q.A.Mean) > tol || math.Abs(p.E.Mean-q.E.Mean) > tol {
			t.Errorf("%s: a %g vs %g, e %g vs %g: want a opposite, e equal", attr, p.A.Mean, q.A.Mean, p.E.Mean, q.E.Mean)
		}
		line := paneRow(f, 0, attr+" ")
		// a'_k's fold range is a_k's negated, e'_k's is e_k's: marked
		// when clear of 0.
		if clear := p.A.Min > 0 || p.A.Max < 0; clear != strings.Contains(line, " oppose ") {
			t.Errorf("%s row %q: a_k in [%g, %g], opposing signs marked %v", attr, line, p.A.Min, p.A.Max, !clear)
		}
		if clear := p.E.Min > 0 || p.E.Max < 0; clear != strings.HasSuffix(line, " agree") {
			t.Errorf("%s row %q: e_k in [%g, %g], agreeing signs marked %v", attr, line, p.E.Min, p.E.Max, !clear)
		}
	}
	want := fmt.Sprintf("PRISM %s %s %s %s", widgets.Mean4(x.Rep.Methods.PRISM.Mean), widgets.Gain4(x.Rep.Methods.PRISM.DiffVsVanilla.Mean),
		widgets.Mean4(y.Rep.Methods.PRISM.Mean), widgets.Gain4(y.Rep.Methods.PRISM.DiffVsVanilla.Mean))
	if line := strings.Join(strings.Fields(paneRow(f, 0, "PRISM ")), " "); line != want {
		t.Errorf("PRISM row %q, want %q", line, want)
	}
}

// Golden frames of the Compare tab on the two-judge fixture.
func TestGoldenCompare(t *testing.T) {
	t.Parallel()
	a := twoJudgeDemo(t, goldenSizes[0][0], goldenSizes[0][1])
	press(a, "8", "c")
	g := goldenFrames{}
	g.capture(a, "")
	g.check(t)
}
