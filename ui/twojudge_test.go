package ui

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/tab"
	runtab "github.com/prism-eval/prism/ui/tabs/run"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/jobs"
	"github.com/prism-eval/prism/ui/tabs/fit"
	"github.com/prism-eval/prism/ui/tabs/profiles"
)

// jsonOf is v as JSON, for comparing reports field by field.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// paneText is the text of a frame with the pane borders dropped and runs
// of spaces made one, so that a wrapped line reads as one.
func paneText(f string) string {
	f = strings.NewReplacer("│", " ", "╭", " ", "╮", " ", "╰", " ", "╯", " ", "─", " ").Replace(f)
	return strings.Join(strings.Fields(f), " ")
}

// On the two-judge fixture, naming the imported judge on the Run tab
// fits it: the Fit tab's report is calib.Fit on its stored answers
// (which have no bank version), and its profiles are the first judge's
// with a_k negated and e_k the same (see twoJudgeDemo). The last fit is
// marked stale on both tabs when the named judge changes.
func TestTwoJudgeFitProfiles(t *testing.T) {
	t.Parallel()
	a := twoJudgeDemo(t, 160, 48)
	press(a, "5", "f")
	first := a.fit.Report()
	if a.fit.Err() != nil || first == nil || a.fit.Key().Judge != "offline" {
		t.Fatalf("fit of the offline judge: err %v, key %+v", a.fit.Err(), a.fit.Key())
	}
	setFormField(t, a, runtab.FieldName, "swapped")
	const note = "this fit is of judge offline; the Run tab now names swapped: f refits"
	for _, s := range []string{"5", "6"} {
		press(a, s)
		if f := frame(a); !strings.Contains(f, note) {
			t.Errorf("screen %s lacks the stale note:\n%s", s, f)
		}
	}
	press(a, "5", "f")
	rep := a.fit.Report()
	if a.fit.Err() != nil || rep == nil || a.fit.Key().Judge != "swapped" {
		t.Fatalf("fit of the swapped judge: err %v, key %+v", a.fit.Err(), a.fit.Key())
	}
	if f := frame(a); strings.Contains(f, "f refits") {
		t.Errorf("a fresh fit is marked stale:\n%s", f)
	}
	rows, labels, err := a.study.Store.FitInput(context.Background(), a.study.Dataset.Name, "swapped", "")
	if err != nil {
		t.Fatal(err)
	}
	labels, _ = model.ScoredLabels(rows, labels)
	want, _, err := calib.Fit(context.Background(), rows, labels, analysis.FitOptions(model.MetricSpearman, false))
	if err != nil {
		t.Fatal(err)
	}
	if got, w := jsonOf(t, rep.Methods), jsonOf(t, want.Methods); got != w {
		t.Errorf("methods of the screen's fit\n%s\nwant\n%s", got, w)
	}
	if got, w := jsonOf(t, rep.Profiles), jsonOf(t, want.Profiles); got != w {
		t.Errorf("profiles of the screen's fit\n%s\nwant\n%s", got, w)
	}
	const tol = 1e-9
	if d := math.Abs(rep.Methods.PRISM.Mean - first.Methods.PRISM.Mean); d > tol {
		t.Errorf("PRISM means of the two judges differ by %g", d)
	}
	press(a, "6")
	for i, attr := range a.prof.Attrs() {
		p, q := rep.Profiles[attr], first.Profiles[attr]
		if math.Abs(p.A.Mean+q.A.Mean) > tol || math.Abs(p.E.Mean-q.E.Mean) > tol {
			t.Errorf("%s: a %g vs %g, e %g vs %g: want a opposite, e equal", attr, p.A.Mean, q.A.Mean, p.E.Mean, q.E.Mean)
		}
		a.prof.Select(i)
		f := paneText(frame(a))
		for _, line := range []string{profiles.StatText("a_k", p.A), profiles.StatText("e_k", p.E)} {
			if line = strings.Join(strings.Fields(line), " "); !strings.Contains(f, line) {
				t.Errorf("%s: profiles screen lacks %q", attr, line)
			}
		}
	}
}

// Fits, profiles and compare fits are marked stale when the bank changes
// or a run stores new answers, and a refit clears the mark.
func TestFitStale(t *testing.T) {
	t.Parallel()
	a, _ := fittedDemo(t, 100, 30)
	press(a, "1", "down", "right", "down", "enter", "8", "c")
	for _, s := range []string{"5", "6", "8"} {
		press(a, s)
		if f := frame(a); strings.Contains(f, "refits") {
			t.Fatalf("screen %s marked stale right after its fit:\n%s", s, f)
		}
	}
	// The screen answered every demo context twice; a third run adds
	// answers: 20 of them, then it is cancelled (what it finished is
	// stored).
	setFormField(t, a, runtab.FieldRepeats, "3")
	gate(t, a, 20)
	press(a, "3")
	_, cmd := a.Update(keyMsg("s"))
	a.Update(cmd()) // runStartedMsg
	if a.run.Handle() == nil {
		t.Fatalf("run did not start: %v", a.run.Live().Err())
	}
	for (*a.run.Live().Progress()).Done < 20 {
		a.Update(runtab.Drain(a.run.Handle())())
	}
	a.run.Handle().Cancel()
	drive(a, runtab.Drain(a.run.Handle()))
	if a.run.Live() == nil || a.run.Live().Phase() != runtab.PhaseDone || (*a.run.Live().Progress()).Answered == 0 {
		t.Fatalf("run: %+v", a.run.Live())
	}
	for s, want := range map[string]string{
		"5": "new answers were stored since this fit: f refits",
		"6": "new answers were stored since this fit: f refits",
		"7": "new answers were stored since: f refits and shows them here",
		"8": "new answers were stored since these fits: c refits",
	} {
		press(a, s)
		if f := frame(a); !strings.Contains(f, want) {
			t.Errorf("screen %s lacks %q:\n%s", s, want, f)
		}
	}
	press(a, "5", "f", "8", "c")
	for _, s := range []string{"5", "6", "7", "8"} {
		press(a, s)
		if f := frame(a); strings.Contains(f, "refits") {
			t.Errorf("screen %s still stale after refitting:\n%s", s, f)
		}
	}
	// s with nothing left to send shows the stored study and stores
	// nothing: still fresh (the screen answered repeats 0 and 1 of
	// everything).
	setFormField(t, a, runtab.FieldRepeats, "2")
	press(a, "s")
	if a.run.Live() == nil || a.run.Live().Phase() != runtab.PhaseStored || a.run.Live().Stored().Answered == 0 {
		t.Fatalf("s with nothing to send: %+v", a.run.Live())
	}
	press(a, "6")
	if f := frame(a); strings.Contains(f, "refits") {
		t.Errorf("a run that stored nothing made the fit stale:\n%s", f)
	}
	press(a, "2", "b")
	for s, want := range map[string]string{
		"6": "the bank has changed since this fit",
		"8": "the dataset or bank has changed since these fits: c refits",
	} {
		press(a, s)
		if f := paneText(frame(a)); !strings.Contains(f, want) {
			t.Errorf("after a bank change screen %s lacks %q:\n%s", s, want, f)
		}
	}
}

// Golden frames of the Fit, Profiles and Inspect tabs on the two-judge
// fixture: the first judge's fit, the fit marked stale once the Run
// tab names the imported judge, and that judge's fit, profiles and a
// candidate (the Compare tab's frames are in TestGoldenCompare).
func TestGoldenTwoJudges(t *testing.T) {
	t.Parallel()
	a := twoJudgeDemo(t, goldenSizes[0][0], goldenSizes[0][1])
	g := goldenFrames{}
	press(a, "5", "f")
	g.capture(a, "fit-offline")
	setFormField(t, a, runtab.FieldName, "swapped")
	press(a, "6")
	g.capture(a, "profiles-stale")
	press(a, "5", "f")
	g.capture(a, "fit-swapped")
	press(a, "6")
	g.capture(a, "profiles-swapped")
	press(a, "1", "down", "right", "down", "enter")
	g.capture(a, "inspect-swapped")
	g.check(t)
}

// The analysis tabs in the real program, every message going through
// Bubble Tea's loop: screen the demo bank, fit, read the profiles,
// inspect a candidate, then import a second judge (its probe signs
// swapped, as in twoJudgeDemo) and compare the two. The last frame is a
// golden file.
func TestProgramAnalysis(t *testing.T) {
	t.Parallel()
	// The workspace holds the screen's answers (TestProgramScreenSelect
	// screens in a program); the second judge is imported below.
	a := New(studyOn(t, copyFixture(t, fixtureScreened)))
	// Read before the program owns the App.
	st, ds, hash := a.study.Store, a.study.Dataset.Name, a.bank.Bank().Hash()
	tm, waitFor := runProgram(t, a, programDeadline)
	send := func(keys ...string) {
		for _, k := range keys {
			tm.Send(keyMsg(k))
		}
	}
	waitFor("Contexts")
	send("5", "f")
	waitFor("γ per outer fold")
	send("6")
	waitFor("sign-stable")
	send("1", "down", "right", "down", "enter")
	waitFor("rank in context")
	send("esc")

	// A second judge, imported straight into the workspace.
	ctx := context.Background()
	rows, err := st.Scores(ctx, ds, "offline", hash)
	if err != nil || len(rows) == 0 {
		t.Fatalf("scores of the screen: %d, %v", len(rows), err)
	}
	for i, r := range rows {
		if attr, sign, ok := strings.Cut(r.Probe, ":"); ok && attr != "ctx" && attr != "neutral" {
			rows[i].Probe = attr + ":" + map[string]string{"+": "-", "-": "+"}[sign]
		}
	}
	if _, err := st.ImportScores(ctx, ds, "swapped", rows); err != nil {
		t.Fatal(err)
	}
	send("8", "c")
	waitFor("oppose")
	send("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(programDeadline))
	final := tm.FinalModel(t).(*App)
	if final.fit.Report() == nil || final.insp.Inspection() == nil || len(final.cmp.Fits()) != 2 {
		t.Fatalf("fit %v, inspection %v, %d compared judges", final.fit.Report() != nil, final.insp.Inspection() != nil, len(final.cmp.Fits()))
	}
	golden.RequireEqual(t, frame(final))
}

// In a workspace without a dataset the analysis tabs say what to do
// first instead of querying an unnamed dataset; without a workspace they
// say to open one.
func TestAnalysisWithoutData(t *testing.T) {
	t.Parallel()
	s := demoStudy(t)
	empty := Session{Dataset: &model.Dataset{}, Bank: s.Bank, Store: s.Store}
	bare := Session{Dataset: s.Dataset, Bank: s.Bank}
	for _, tc := range []struct {
		study Session
		want  string
	}{
		{empty, "no dataset yet: i on the Data tab imports one"},
		{bare, tab.ErrNoWorkspace.Error()},
	} {
		a := New(tc.study)
		a.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
		for _, keys := range [][]string{{"5", "f"}, {"4", "r"}, {"8", "c"}} {
			press(a, keys...)
			if f := paneText(frame(a)); !strings.Contains(f, tc.want) {
				t.Errorf("%v: frame lacks %q:\n%s", keys, tc.want, frame(a))
			}
		}
	}
}

// While a fit runs, the Fit tab and its tab say how far it is: outer
// folds first, then the bootstrap.
func TestFitProgressShown(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 100, 30)
	press(a, "5")
	a.fit.Job().Job = jobs.New[fit.Result](studyKey{}, func() {})
	for _, tc := range []struct {
		done, total int
		text, tab   string
	}{
		{0, 0, "fitting… (nested cross-validation, then the bootstrap)", "5 Fit …"},
		{2, 6, "fitting… outer fold 2 of 5 done (nested cross-validation)", "5 Fit 33%"},
		{5, 6, "fitting… 5 outer folds done; bootstrap", "5 Fit 83%"},
	} {
		a.fit.Job().Done, a.fit.Job().Total = tc.done, tc.total
		f := frame(a)
		if !strings.Contains(f, tc.text) || !strings.Contains(strings.SplitN(f, "\n", 2)[0], tc.tab) {
			t.Errorf("%d/%d: want %q and tab %q:\n%s", tc.done, tc.total, tc.text, tc.tab, f)
		}
	}
	// A progress message of the job in flight is taken; one of an older
	// job is dropped.
	a.Update(jobs.ProgressMsg[fit.Result]{Job: a.fit.Job().Job, Done: 3, Total: 6})
	a.Update(jobs.ProgressMsg[fit.Result]{Job: jobs.New[fit.Result](studyKey{}, func() {}), Done: 1, Total: 6})
	if a.fit.Job().Done != 3 {
		t.Errorf("progress %d/%d, want 3/6", a.fit.Job().Done, a.fit.Job().Total)
	}
}
