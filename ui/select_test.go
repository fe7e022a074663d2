package ui

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/ratio"
	runtab "github.com/prism-eval/prism/ui/tabs/run"

	"github.com/prism-eval/prism/calib/selection"
	"github.com/prism-eval/prism/calib/signal"
	banktab "github.com/prism-eval/prism/ui/tabs/bank"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/ui/jobs"
	"github.com/prism-eval/prism/ui/widgets"
)

// Screening the demo bank through the Bank tab's key stores the
// sample's answers and shows each unit's verdict; they are those of
// calib.Signal on the same answers. Then the Selection tab's curve is
// that of calib.Select on the workspace.
//
// The same flow gives the golden frames of the screened Bank tab and
// of the Selection tab: before a selection, while one runs (progress
// injected) and after it, at every golden size.
func TestScreenAndSelectFlow(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 160, 48)
	drive(a, a.Init())
	g := goldenFrames{}
	press(a, "2")
	if f := frame(a); !strings.Contains(f, "no answers of this judge") {
		t.Fatalf("bank screen before screening:\n%s", f)
	}
	press(a, "3")
	if p := a.run.Plan(); p == nil || p.Estimate.Answered != 0 {
		t.Fatalf("estimate before the screen: %+v", p)
	}
	press(a, "4")
	g.capture(a, "select-empty")
	press(a, "2", "s")
	if a.bank.Screening() {
		t.Fatal("the screen did not finish")
	}
	g.capture(a, "bank-screened")
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	f := frame(a)
	checkEstimateCounts(t, a)
	k, ok := a.currentKey()
	if !ok {
		t.Fatal("no study key")
	}
	ctx := context.Background()
	rows, err := a.study.Store.Scores(ctx, k.Dataset, k.Judge, k.BankHash)
	if err != nil {
		t.Fatal(err)
	}
	// The demo has 12 contexts, fewer than the sample: all are screened,
	// 2 runs of every condition of 60 candidates.
	nConds := len(a.bank.Bank().Conditions())
	if want := 60 * nConds * banktab.ScreenRuns; len(rows) != want {
		t.Fatalf("%d answers stored, want %d", len(rows), want)
	}
	rep, err := signal.Signal(ctx, rows, signal.Options{Bootstrap: ratio.FinalResamples, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	pass := 0
	for _, u := range rep.Units {
		verdict := "fail"
		if u.Pass {
			verdict, pass = "pass", pass+1
		}
		want := fmt.Sprintf(" %s [%s, %s]   %s", widgets.Num(u.Ratio), widgets.Num(u.CI[0]), widgets.Num(u.CI[1]), verdict)
		if line := lineWith(f, " "+u.Name+" "); !strings.Contains(line, want) {
			t.Errorf("row of %s lacks %q:\n%s", u.Name, want, f)
		}
	}
	if want := fmt.Sprintf("screened: %d of %d units pass", pass, len(rep.Units)); !strings.Contains(f, want) {
		t.Errorf("frame lacks %q:\n%s", want, f)
	}
	if !strings.Contains(f, "screen: 12 contexts × 2 runs") {
		t.Errorf("frame does not say what was screened:\n%s", f)
	}

	press(a, "4", "r")
	if sel := a.sel.Selection(); sel.Job != nil || sel.Err != nil || a.sel.Report() == nil {
		t.Fatalf("selection: job %v, err %v", sel.Job, sel.Err)
	}
	fitRows, labels, err := a.study.Store.FitInput(ctx, k.Dataset, k.Judge, k.BankHash)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := selection.Select(ctx, fitRows, labels, selection.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := a.sel.Report()
	if math.Abs(got.Full.Mean-want.Full.Mean) > 1e-12 || len(got.Curve) != len(want.Curve) {
		t.Fatalf("full mean %v, curve %d sizes; want %v, %d", got.Full.Mean, len(got.Curve), want.Full.Mean, len(want.Curve))
	}
	f = frame(a)
	for _, c := range want.Curve {
		row := fmt.Sprintf("%2d %5d ", c.Size, c.Subsets)
		line := lineWith(f, row)
		if line == "" || !strings.Contains(line, widgets.Gain4(c.Median)) || !strings.Contains(line, "["+widgets.Gain4(c.P10)+", "+widgets.Gain4(c.P90)+"]") {
			t.Errorf("no curve row for size %d (median %s) in:\n%s", c.Size, widgets.Gain4(c.Median), f)
		}
	}
	for _, o := range want.Omission {
		if lineWith(f, o.Unit) == "" || !strings.Contains(f, widgets.Gain4(o.Change)) {
			t.Errorf("omission of %s (%s) missing:\n%s", o.Unit, widgets.Gain4(o.Change), f)
		}
	}
	if want.ForwardStop != "" && !strings.Contains(f, "stop: ") {
		t.Errorf("forward selection's stop missing:\n%s", f)
	}
	g.capture(a, "select-done")
	sel := a.sel.Selection()
	sel.Job, sel.Done, sel.Total = &jobs.Job[*selection.Report]{}, 100, 255
	g.capture(a, "select-running")
	sel.Job = nil
	g.check(t)
}

// lineWith is the first line of f that contains s, or "".
func lineWith(f, s string) string {
	for _, ln := range strings.Split(f, "\n") {
		if strings.Contains(ln, s) {
			return ln
		}
	}
	return ""
}

// Selecting with no answers says what to do instead.
func TestSelectWithoutAnswers(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 80, 24)
	drive(a, a.Init())
	press(a, "4")
	if f := frame(a); !strings.Contains(f, "r runs the selection") {
		t.Fatalf("selection hint missing:\n%s", f)
	}
	press(a, "r")
	if err := a.sel.Selection().Err; err == nil || !strings.Contains(err.Error(), "no answers") {
		t.Fatalf("err %v, want no answers", err)
	}
	if f := frame(a); !strings.Contains(f, "screen the bank") {
		t.Fatalf("the error does not say what to do:\n%s", f)
	}
}

// The real program: screen the bank, then select, with every message
// going through Bubble Tea's loop (progress included).
func TestProgramScreenSelect(t *testing.T) {
	t.Parallel()
	a := New(demoStudy(t))
	tm, waitFor := runProgram(t, a, programDeadline)
	waitFor("Contexts")
	tm.Send(keyMsg("2"))
	waitFor("no answers of this judge")
	tm.Send(keyMsg("s"))
	waitFor("units pass")
	tm.Send(keyMsg("4"))
	waitFor("r runs the selection")
	tm.Send(keyMsg("r"))
	waitFor("forward selection")
	tm.Send(keyMsg("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(programDeadline))
	final := tm.FinalModel(t).(*App)
	if rep := final.sel.Report(); rep == nil || len(rep.Curve) != len(final.bank.Bank().Attributes) {
		t.Fatalf("selection report %+v", rep)
	}
	if view, source, ok := final.bank.Signal(); !ok || view == nil || !strings.HasPrefix(source, "screen:") {
		t.Fatalf("bank signal %+v from %q, %v", view, source, ok)
	}
}

// Quitting while a screen is in flight asks first, cancels the screen,
// and quits once it has stopped; a run cannot start meanwhile.
func TestQuitWhileScreening(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 100, 30)
	drive(a, a.Init())
	g := gate(t, a, 10)
	defer close(g.release)
	press(a, "2")
	_, cmd := a.Update(keyMsg("s"))
	_, next := a.Update(cmd()) // screenStartedMsg
	if !a.bank.ScreenStarted() {
		t.Fatalf("screen did not start: %q", bankStatus(a))
	}
	if a.run.Start(); a.run.PlanErr() != runtab.ErrScreening {
		t.Fatalf("a run started during a screen: %v", a.run.PlanErr())
	}
	press(a, "q")
	if _, ok := a.modal.(confirmQuit); !ok {
		t.Fatal("quit did not ask")
	}
	press(a, "y")
	if !drive(a, next) {
		t.Fatal("the app did not quit after the screen stopped")
	}
}

// A selection computed before the bank changed says so.
func TestSelectStaleAfterBankEdit(t *testing.T) {
	t.Parallel()
	a := fixtureApp(t, fixtureScreened, 100, 30)
	press(a, "4", "r")
	if a.sel.Report() == nil {
		t.Fatalf("no selection: %v", a.sel.Selection().Err)
	}
	if f := frame(a); strings.Contains(f, "has changed since") {
		t.Fatalf("fresh selection marked stale:\n%s", f)
	}
	press(a, "2", "down", "x", "y") // remove accuracy: a new bank version
	press(a, "4")
	if f := frame(a); !strings.Contains(f, "has changed since") {
		t.Fatalf("stale selection not marked:\n%s", f)
	}
}

// Drawing the Selection tab with a 16-unit report (the largest
// enumerated: 16 sizes, 16 omissions, 16 forward steps) at 237×61.
func BenchmarkSelectView16(b *testing.B) {
	a := demoApp(b, 237, 61)
	rep := &selection.Report{Metric: "spearman", NContexts: 100, NCandidates: 1600, Vanilla: 0.31}
	for i := range 16 {
		u := fmt.Sprintf("attribute%02d", i)
		rep.Units = append(rep.Units, u)
		g := float64(i) / 100
		rep.Curve = append(rep.Curve, selection.SizeStat{Size: i + 1, Subsets: 100, Median: g, P10: g - 0.02, P90: g + 0.03})
		rep.Omission = append(rep.Omission, selection.Omission{Unit: u, SubsetResult: selection.SubsetResult{Mean: 0.4, Gain: 0.09}, Change: -g})
		rep.Forward = append(rep.Forward, selection.ForwardStep{Added: u, SubsetResult: selection.SubsetResult{Mean: 0.3 + g, Gain: g}, Improvement: 0.01})
	}
	key, _ := a.currentKey()
	j := jobs.New[*selection.Report](key, func() {})
	j.Res = rep
	a.sel.Selection().Start(j)
	a.Update(jobs.DoneMsg[*selection.Report]{Job: j})
	press(a, "4")
	b.ReportAllocs()
	for b.Loop() {
		sinkView = a.View()
	}
}

// checkEstimateCounts checks that the Run tab's estimate, after the
// Bank tab's screen stored answers, counts them as `prism run
// --dry-run` does (engine.NewPlan), and returns to the Bank tab.
func checkEstimateCounts(t *testing.T, a *App) {
	t.Helper()
	press(a, "3")
	defer press(a, "2")
	if a.run.Live() != nil && a.run.Live().Phase() == runtab.PhaseStored {
		// Everything is answered: the Run tab shows the stored study;
		// the estimate is on the form.
		press(a, "e")
		defer press(a, "esc")
	}
	p := a.run.Plan()
	if p == nil {
		t.Fatal("no plan after the screen")
	}
	sp, err := a.run.Spec()
	if err != nil {
		t.Fatal(err)
	}
	want, err := engine.NewPlan(context.Background(), a.study.Store, sp)
	if err != nil {
		t.Fatal(err)
	}
	if p.Estimate.Answered == 0 || p.Estimate.Answered != want.Estimate.Answered || p.Estimate.Send != want.Estimate.Send {
		t.Errorf("Run tab estimate %d answered, %d to send; the plan counts %d and %d",
			p.Estimate.Answered, p.Estimate.Send, want.Estimate.Answered, want.Estimate.Send)
	}
	if f := frame(a); !strings.Contains(f, fmt.Sprintf("%d answered", want.Estimate.Answered)) {
		t.Errorf("frame lacks %d answered:\n%s", want.Estimate.Answered, f)
	}
}
