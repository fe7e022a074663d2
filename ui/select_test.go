package ui

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prism-eval/prism/calib/selection"

	"github.com/prism-eval/prism/calib/signal"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/prism-eval/prism/judge/engine"
)

func TestGainBar(t *testing.T) {
	// Axis [-1, 9] in 10 cells of width 1: cell i covers [i-1, i).
	for _, tc := range []struct {
		name             string
		median, p10, p90 float64
		lo, hi           float64
		w                int
		want             string
	}{
		// 0 is in cell 1, the band [1.5, 4.5] covers cells 2…5, 3 is in cell 4.
		{"band right of zero", 3, 1.5, 4.5, -1, 9, 10, " │──●─    "},
		// The median on 0 hides the marker.
		{"median at zero", 0, -0.5, 2.5, -1, 9, 10, "─●──      "},
		// Values past the axis are drawn in the end cells.
		{"clamped", 20, -5, 30, -1, 9, 10, "─│───────●"},
		{"no median", math.NaN(), 1, 2, -1, 9, 10, " │        "},
		// Axis [1, 3] in 4 cells of 0.5: the band [1.5, 2.5] covers cells
		// 1…3, the median 2 is in cell 2, and 0 is off the axis.
		{"zero off axis", 2, 1.5, 2.5, 1, 3, 4, " ─●─"},
		{"empty width", 1, 0, 2, -1, 9, 0, ""},
		{"empty axis", 1, 0, 2, 1, 1, 5, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := gainBar(tc.median, tc.p10, tc.p90, tc.lo, tc.hi, tc.w); got != tc.want {
				t.Errorf("gainBar = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGainAxis(t *testing.T) {
	const tol = 1e-12
	for _, tc := range []struct {
		vals   []float64
		lo, hi float64
	}{
		// Span 0.1 - (-0.1) = 0.2, padded by 0.01 each side.
		{[]float64{-0.1, 0.05, 0.1}, -0.11, 0.11},
		// 0 is always on the axis: span 0.2 - 0 = 0.2.
		{[]float64{0.1, 0.2, math.NaN(), math.Inf(1)}, -0.01, 0.21},
		{[]float64{0, 0}, -0.01, 0.01},
	} {
		lo, hi := gainAxis(tc.vals...)
		if math.Abs(lo-tc.lo) > tol || math.Abs(hi-tc.hi) > tol {
			t.Errorf("gainAxis(%v) = [%g, %g], want [%g, %g]", tc.vals, lo, hi, tc.lo, tc.hi)
		}
	}
}

// The Progress callback never waits, however many calls nobody reads, and
// the next message carries the latest numbers.
func TestSelectProgressCoalesces(t *testing.T) {
	j := &selectJob{notify: make(chan struct{}, 1), finished: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		for i := 1; i <= 100000; i++ {
			j.progress(i, 100000)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the Progress callback blocked")
	}
	msg, ok := waitJob(j)().(jobProgressMsg[*selection.Report])
	if !ok || msg.done != 100000 || msg.total != 100000 {
		t.Fatalf("progress message %+v, want the latest 100000/100000", msg)
	}
	close(j.finished)
	if _, ok := waitJob(j)().(jobDoneMsg[*selection.Report]); !ok {
		t.Fatal("no done message after the job finished")
	}
}

// Screening the demo bank through the Bank screen's key stores the
// sample's answers and shows each unit's verdict; they are those of
// signal.Signal on the same answers. Then the Selection screen's curve is
// that of selection.Select on the workspace.
//
// The same flow gives the golden frames of the screened Bank screen and
// of the Selection screen: before a selection, while one runs (progress
// injected) and after it, at every golden size.
func TestScreenAndSelectFlow(t *testing.T) {
	a := demoApp(t, 160, 48)
	drive(a, a.Init())
	g := goldenFrames{}
	press(a, "2")
	if f := frame(a); !strings.Contains(f, "no answers of this judge") {
		t.Fatalf("bank screen before screening:\n%s", f)
	}
	press(a, "3")
	if p := a.run.plan; p == nil || p.Estimate.Answered != 0 {
		t.Fatalf("estimate before the screen: %+v", p)
	}
	press(a, "4")
	g.capture(a, "select-empty")
	press(a, "2", "s")
	if a.bank.screening != nil {
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
	rows, err := a.study.Store.Scores(ctx, k.dataset, k.judge, k.bankHash)
	if err != nil {
		t.Fatal(err)
	}
	// The demo has 12 contexts, fewer than the sample: all are screened,
	// 2 runs of every condition of 60 candidates.
	nConds := len(a.bank.bank.Conditions())
	if want := 60 * nConds * screenRuns; len(rows) != want {
		t.Fatalf("%d answers stored, want %d", len(rows), want)
	}
	rep, err := signal.Signal(ctx, rows, signal.Options{Bootstrap: finalResamples, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	pass := 0
	for _, u := range rep.Units {
		verdict := "fail"
		if u.Pass {
			verdict, pass = "pass", pass+1
		}
		want := fmt.Sprintf(" %s [%s, %s]   %s", num(u.Ratio), num(u.CI[0]), num(u.CI[1]), verdict)
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
	if a.sel.job != nil || a.sel.err != nil || a.sel.rep == nil {
		t.Fatalf("selection: job %v, err %v", a.sel.job, a.sel.err)
	}
	fitRows, labels, err := a.study.Store.FitInput(ctx, k.dataset, k.judge, k.bankHash)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := selection.Select(ctx, fitRows, labels, selection.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := a.sel.rep
	if math.Abs(got.Full.Mean-want.Full.Mean) > 1e-12 || len(got.Curve) != len(want.Curve) {
		t.Fatalf("full mean %v, curve %d sizes; want %v, %d", got.Full.Mean, len(got.Curve), want.Full.Mean, len(want.Curve))
	}
	f = frame(a)
	for _, c := range want.Curve {
		row := fmt.Sprintf("%2d %5d ", c.Size, c.Subsets)
		line := lineWith(f, row)
		if line == "" || !strings.Contains(line, gain4(c.Median)) || !strings.Contains(line, "["+gain4(c.P10)+", "+gain4(c.P90)+"]") {
			t.Errorf("no curve row for size %d (median %s) in:\n%s", c.Size, gain4(c.Median), f)
		}
	}
	for _, o := range want.Omission {
		if lineWith(f, o.Unit) == "" || !strings.Contains(f, gain4(o.Change)) {
			t.Errorf("omission of %s (%s) missing:\n%s", o.Unit, gain4(o.Change), f)
		}
	}
	if want.ForwardStop != "" && !strings.Contains(f, "stop: ") {
		t.Errorf("forward selection's stop missing:\n%s", f)
	}
	g.capture(a, "select-done")
	a.sel.job, a.sel.done, a.sel.total = &selectJob{}, 100, 255
	g.capture(a, "select-running")
	a.sel.job = nil
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
	a := demoApp(t, 80, 24)
	drive(a, a.Init())
	press(a, "4")
	if f := frame(a); !strings.Contains(f, "r runs the selection") {
		t.Fatalf("selection hint missing:\n%s", f)
	}
	press(a, "r")
	if a.sel.err == nil || !strings.Contains(a.sel.err.Error(), "no answers") {
		t.Fatalf("err %v, want no answers", a.sel.err)
	}
	if f := frame(a); !strings.Contains(f, "screen the bank") {
		t.Fatalf("the error does not say what to do:\n%s", f)
	}
}

// The real program: screen the bank, then select, with every message
// going through Bubble Tea's loop (progress included).
func TestProgramScreenSelect(t *testing.T) {
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
	if final.sel.rep == nil || len(final.sel.rep.Curve) != len(final.bank.bank.Attributes) {
		t.Fatalf("selection report %+v", final.sel.rep)
	}
	if s, ok := final.bank.current(final); !ok || s.view == nil || !strings.HasPrefix(s.source, "screen:") {
		t.Fatalf("bank signal %+v, %v", s, ok)
	}
}

// Quitting while a screen is in flight asks first, cancels the screen,
// and quits once it has stopped; a run cannot start meanwhile.
func TestQuitWhileScreening(t *testing.T) {
	a := demoApp(t, 100, 30)
	drive(a, a.Init())
	g := gate(t, a, 10)
	defer close(g.release)
	press(a, "2")
	_, cmd := a.Update(keyMsg("s"))
	_, next := a.Update(cmd()) // screenStartedMsg
	if a.bank.screening == nil || a.bank.screening.run == nil {
		t.Fatalf("screen did not start: %q", a.bank.status)
	}
	if a.start(); a.run.planErr != errScreening {
		t.Fatalf("a run started during a screen: %v", a.run.planErr)
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
	a := fixtureApp(t, fixtureScreened, 100, 30)
	press(a, "4", "r")
	if a.sel.rep == nil {
		t.Fatalf("no selection: %v", a.sel.err)
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

// Drawing the Selection screen with a 16-unit report (the largest
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
	a.sel.rep = rep
	a.sel.key, _ = a.currentKey()
	press(a, "4")
	b.ReportAllocs()
	for b.Loop() {
		sinkView = a.View()
	}
}

// checkEstimateCounts checks that the Run screen's estimate, after the
// Bank screen's screen stored answers, counts them as `prism run
// --dry-run` does (engine.NewPlan), and returns to the Bank screen.
func checkEstimateCounts(t *testing.T, a *App) {
	t.Helper()
	press(a, "3")
	defer press(a, "2")
	if a.run.live != nil && a.run.live.phase == phaseStored {
		// Everything is answered: the Run screen shows the stored study;
		// the estimate is on the form.
		press(a, "e")
		defer press(a, "esc")
	}
	p := a.run.plan
	if p == nil {
		t.Fatal("no plan after the screen")
	}
	sp, err := a.spec()
	if err != nil {
		t.Fatal(err)
	}
	want, err := engine.NewPlan(context.Background(), a.study.Store, sp)
	if err != nil {
		t.Fatal(err)
	}
	if p.Estimate.Answered == 0 || p.Estimate.Answered != want.Estimate.Answered || p.Estimate.Send != want.Estimate.Send {
		t.Errorf("Run screen estimate %d answered, %d to send; the plan counts %d and %d",
			p.Estimate.Answered, p.Estimate.Send, want.Estimate.Answered, want.Estimate.Send)
	}
	if f := frame(a); !strings.Contains(f, fmt.Sprintf("%d answered", want.Estimate.Answered)) {
		t.Errorf("frame lacks %d answered:\n%s", want.Estimate.Answered, f)
	}
}
