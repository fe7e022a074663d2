package ui

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	runtab "github.com/prism-eval/prism/ui/tabs/run"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/agree"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/tabs/compare"
	"github.com/prism-eval/prism/ui/widgets"
)

// importBare imports the baseline answers of a's judge, halved and
// rounded (a coarser judge with ties), as the judge "bare": imported
// scores without probes and without a bank.
func importBare(a *App) error {
	k, _ := a.currentKey()
	rows, err := a.study.Store.Scores(context.Background(), k.Dataset, k.Judge, k.BankHash)
	if err != nil {
		return err
	}
	var bare []model.ScoreRow
	for _, r := range rows {
		if r.Probe == model.ProbeBaseline {
			r.Score = math.Round(r.Score / 2)
			bare = append(bare, r)
		}
	}
	_, err = a.study.Store.ImportScores(context.Background(), k.Dataset, "bare", bare)
	return err
}

// wantAgreement is calib/agree's analysis of the judges' stored baseline
// answers on the demo, averaged over runs here rather than by
// agree.BaselineMeans, with prism agree's defaults.
func wantAgreement(t *testing.T, a *App, metric string, judges ...string) *agree.Result {
	t.Helper()
	var scores []map[agree.Key]float64
	var labels []model.Label
	for _, j := range judges {
		rows, ls, err := a.study.Store.FitInput(context.Background(), a.study.Dataset.Name, j, a.bank.Bank().Hash())
		if err != nil {
			t.Fatal(err)
		}
		sum, n := map[agree.Key]float64{}, map[agree.Key]float64{}
		for _, r := range rows {
			if r.Probe == model.ProbeBaseline && !r.Missing {
				k := agree.Key{Context: r.Context, Candidate: r.Candidate}
				sum[k] += r.Score
				n[k]++
			}
		}
		for k := range sum {
			sum[k] /= n[k]
		}
		scores, labels = append(scores, sum), ls
	}
	tab, _, err := agree.Build(labels, judges, scores)
	if err != nil {
		t.Fatal(err)
	}
	opts := agree.DefaultOptions()
	opts.Metric = metric
	res, err := agree.Compute(tab, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// f on the Fit tab for a judge without probe answers shows its agreement
// table (prism agree's metrics) instead of only "nothing to fit"; m
// switches the headline to pairwise accuracy; naming another judge marks
// it stale.
func TestFitAgreementWithoutProbes(t *testing.T) {
	t.Parallel()
	a := fixtureApp(t, fixtureAgree, 120, 40)
	setFormField(t, a, runtab.FieldName, "bare")
	press(a, "5", "f")
	if a.fit.Err() != nil || a.fit.Report() != nil || a.fit.Agreement() == nil {
		t.Fatalf("f on a judge without probes: err %v, report %v, agreement %v", a.fit.Err(), a.fit.Report() != nil, a.fit.Agreement())
	}
	got := a.fit.Agreement().Res
	want := wantAgreement(t, a, agree.KeySpearman, "bare")
	if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
		t.Fatalf("the Fit tab's agreement\n%s\nwant\n%s", g, w)
	}
	f := paneText(frame(a))
	for _, m := range []string{agree.KeySpearman, agree.KeyKendall, agree.KeyPairwise, agree.KeyPearsonGlobal, agree.KeyKendallGlobal} {
		e := want.Judges["bare"][m]
		if cell := widgets.Mean4(e.Mean) + " " + widgets.CI(e.CI); !strings.Contains(f, cell) {
			t.Errorf("the Fit tab lacks %s %q:\n%s", m, cell, f)
		}
	}
	for _, s := range []string{"no probe answers, so there is nothing to fit", "Kendall τ-b", "Spearman *", "resamples, seed 42"} {
		if !strings.Contains(f, s) {
			t.Errorf("the Fit tab lacks %q:\n%s", s, f)
		}
	}
	press(a, "m")
	if a.fit.Agreement() == nil || a.fit.Agreement().Res.Metric != agree.KeyPairwise || !strings.Contains(paneText(frame(a)), "pairwise acc. *") {
		t.Fatalf("m: the headline is not pairwise accuracy: %+v", a.fit.Agreement())
	}
	press(a, "m")
	setFormField(t, a, runtab.FieldName, "offline")
	press(a, "5")
	if f := paneText(frame(a)); !strings.Contains(f, "this agreement is of judge bare; the Run tab now names offline") {
		t.Errorf("the agreement is not marked stale:\n%s", f)
	}
	press(a, "f")
	if a.fit.Report() == nil || a.fit.Agreement() != nil {
		t.Errorf("f on the probed judge: report %v, agreement %v", a.fit.Report() != nil, a.fit.Agreement() != nil)
	}
}

// The Compare tab measures every judge, the one without probes too, on
// the same resamples: its agreement beside the probed judges' fits.
func TestCompareAgreement(t *testing.T) {
	t.Parallel()
	a := fixtureApp(t, fixtureAgree, 160, 48)
	press(a, "8", "c")
	v := a.cmp
	if v.Busy() || v.Err() != nil || v.AgreementErr() != nil || len(v.Fits()) != 3 || v.Agreement() == nil {
		t.Fatalf("compare: busy %v, err %v, agreement %v (%v), %d fits", v.Busy(), v.Err(), v.Agreement(), v.AgreementErr(), len(v.Fits()))
	}
	if v.Fits()[0].Judge != "bare" || !errors.Is(v.Fits()[0].Err, calib.ErrNoProbes) {
		t.Fatalf("the first judge: %s (%v), want bare without probes", v.Fits()[0].Judge, v.Fits()[0].Err)
	}
	want := wantAgreement(t, a, agree.KeySpearman, "bare", "offline", "swapped")
	if g, w := jsonOf(t, v.Agreement()), jsonOf(t, want); g != w {
		t.Fatalf("the Compare tab's agreement\n%s\nwant\n%s", g, w)
	}
	raw := frame(a)
	f := paneText(raw)
	if strings.Contains(f, "nothing to fit") {
		t.Errorf("the judge without probes is shown as an error:\n%s", f)
	}
	best := want.Order[0]
	for i, j := range []string{"bare", "offline", "swapped"} {
		e := want.Judges[j][agree.KeySpearman]
		row := strings.Join(strings.Fields(paneRow(raw, 0, string(compare.JudgeMark(i))+" "+j+" ")), " ")
		cell := widgets.Mean4(e.Mean) + " " + widgets.CI(e.CI)
		if j != best {
			for _, p := range want.Pairs {
				if p.A == best && p.B == j {
					cell += " " + widgets.Fixed4(-p.Mean) + " [" + widgets.Fixed4(-p.CI[1]) + ", " + widgets.Fixed4(-p.CI[0]) + "]"
				}
			}
		}
		if !strings.HasSuffix(row, cell) {
			t.Errorf("%s's row %q, want it to end in %q", j, row, cell)
		}
	}
	if !strings.Contains(f, "No probe answers (agreement only): A bare.") {
		t.Errorf("the judge without probes is not named:\n%s", f)
	}
	// The probed judges' method table is still drawn.
	if !strings.Contains(f, "PRISM ") {
		t.Errorf("no method table:\n%s", f)
	}
}

// Golden frames: the Fit tab's agreement of the judge without probes,
// and the Compare tab with it beside the probed judges.
func TestGoldenAgreement(t *testing.T) {
	t.Parallel()
	a := fixtureApp(t, fixtureAgree, goldenSizes[0][0], goldenSizes[0][1])
	g := goldenFrames{}
	setFormField(t, a, runtab.FieldName, "bare")
	press(a, "5", "f")
	g.capture(a, "fit-agreement")
	press(a, "8", "c")
	g.capture(a, "compare-agreement")
	g.check(t)
}
