package ui

import (
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/ui/styles"
)

// waitFor polls cond until it holds, failing after a minute (a bound for
// a hung test, far above what a loaded machine needs).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// startHeld starts a run whose judge answers `open` requests and then
// holds the rest until released or cancelled.
func startHeld(t *testing.T, a *App, open int) *gatedJudge {
	t.Helper()
	g := gate(t, a, open)
	press(a, "3")
	_, cmd := a.Update(keyMsg("s"))
	a.Update(cmd()) // runStartedMsg
	if a.active == nil {
		t.Fatalf("run did not start: %v", a.run.live.err)
	}
	return g
}

func TestPauseResumeCancel(t *testing.T) {
	a := demoApp(t, 100, 30)
	drive(a, a.Init())
	startHeld(t, a, 50)
	run := a.active
	press(a, "p")
	if !run.Snapshot().Paused || !strings.Contains(frame(a), "paused") {
		t.Fatal("p did not pause the run")
	}
	press(a, "p")
	if run.Snapshot().Paused || !strings.Contains(frame(a), "running") {
		t.Fatal("p did not resume the run")
	}
	// The run keeps going while another tab is shown, and the Run tab
	// shows its progress.
	press(a, "1")
	waitFor(t, "50 answers", func() bool { return run.Snapshot().Done >= 50 })
	for a.run.live.nRecent < 50 {
		a.Update(waitEvents(run)())
	}
	if !strings.Contains(frame(a), "3 Run 2%") { // 50/2280
		t.Errorf("the Run tab does not show progress:\n%s", strings.SplitN(frame(a), "\n", 2)[0])
	}
	press(a, "3", "x")
	if a.run.live.phase != phaseCanceling {
		t.Fatalf("x: phase %d, want canceling", a.run.live.phase)
	}
	// Drain to the end: the held requests are abandoned, not failed.
	for a.active != nil {
		_, cmd := a.Update(waitEvents(run)())
		if m, ok := cmd().(runDoneMsg); ok {
			drive(a, func() tea.Msg { return m })
		}
	}
	lr := a.run.live
	if lr.phase != phaseDone || lr.summary == nil || !lr.summary.Canceled {
		t.Fatalf("after cancel: phase %d summary %+v", lr.phase, lr.summary)
	}
	if lr.prog.Done != 50 || lr.prog.Failed != 0 {
		t.Errorf("canceled run: done %d failed %d, want 50 and 0", lr.prog.Done, lr.prog.Failed)
	}
	if f := frame(a); !strings.Contains(f, "canceled") {
		t.Errorf("frame does not say canceled:\n%s", f)
	}
	// The estimate now counts the 50 stored answers, and a new run resumes.
	if a.run.plan == nil || a.run.plan.Estimate.Answered != 50 {
		t.Fatalf("re-estimate after cancel: %+v", a.run.plan)
	}
}

func TestQuitAsksDuringRun(t *testing.T) {
	a := demoApp(t, 100, 30)
	drive(a, a.Init())
	startHeld(t, a, 0)
	run := a.active
	if press(a, "q") {
		t.Fatal("q quit with a run in flight")
	}
	if !strings.Contains(frame(a), "Cancel it and quit?") {
		t.Fatalf("no confirmation:\n%s", frame(a))
	}
	press(a, "n")
	if a.modal != nil || a.active == nil || run.Snapshot().Paused {
		t.Fatal("n did not keep the run going")
	}
	press(a, "q")
	press(a, "y")
	if a.run.live.phase != phaseCanceling || !a.quitAfterRun {
		t.Fatal("y did not cancel the run")
	}
	// The program quits once the run has stored what it finished.
	var quit bool
	for !quit {
		_, cmd := a.Update(waitEvents(run)())
		if cmd != nil {
			if m, ok := cmd().(runDoneMsg); ok {
				_, last := a.Update(m)
				quit = last != nil && isQuit(last)
				if !quit {
					t.Fatal("the run ended but the App did not quit")
				}
			}
		}
	}
}

func isQuit(cmd tea.Cmd) bool {
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

// A run on an empty selection or without a workspace explains itself
// instead of starting.
func TestRunWithoutWorkspace(t *testing.T) {
	s := demoStudy(t)
	s.Store = nil
	a := New(s)
	a.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	drive(a, a.Init())
	press(a, "3", "s")
	if a.run.live != nil {
		t.Fatal("a run started without a workspace")
	}
	if f := frame(a); !strings.Contains(f, "no workspace is open") {
		t.Fatalf("no explanation:\n%s", f)
	}
}

// An invalid form value shows the field's error in the estimate pane.
func TestRunFormErrorInPlace(t *testing.T) {
	a := demoApp(t, 100, 30)
	drive(a, a.Init())
	setConcurrency(a, 0)
	if f := frame(a); !strings.Contains(f, "concurrency: 0, want at least 1") {
		t.Fatalf("form error not shown:\n%s", f)
	}
	press(a, "s")
	if a.run.live != nil {
		t.Fatal("a run started with an invalid form")
	}
}

// The ratio panel is recomputed at most every signalEvery, or three times
// as long as the last computation took, and never twice at once.
func TestSignalThrottle(t *testing.T) {
	a := demoApp(t, 100, 30)
	drive(a, a.Init())
	clock := time.Unix(0, 0)
	a.now = func() time.Time { return clock }
	b := a.run.plan.Spec.Bank
	a.runPlan = a.run.plan
	a.run.live = newLiveRun(b, 9)
	a.run.live.phase = phaseRunning
	if a.run.maybeSignal(a, true) == nil {
		t.Fatal("first recomputation not started")
	}
	if a.run.maybeSignal(a, true) != nil {
		t.Fatal("a second recomputation started while one runs")
	}
	a.run.onSignal(a, signalMsg{view: &signalView{Took: 400 * time.Millisecond}})
	clock = clock.Add(signalEvery)
	if a.run.maybeSignal(a, false) != nil {
		t.Fatal("recomputed 500 ms after one that took 400 ms; want 1.2 s")
	}
	clock = clock.Add(700 * time.Millisecond)
	if a.run.maybeSignal(a, false) == nil {
		t.Fatal("not recomputed 1.2 s after one that took 400 ms")
	}
	a.run.onSignal(a, signalMsg{view: &signalView{Took: time.Millisecond}})
	clock = clock.Add(signalEvery - time.Millisecond)
	if a.run.maybeSignal(a, false) != nil {
		t.Fatal("recomputed sooner than signalEvery")
	}
	// The end of the run asks for the final panel at once.
	a.run.signalFinal = true
	if a.run.maybeSignal(a, false) == nil || a.run.signalFinal {
		t.Fatal("final panel not started")
	}
}

// ctrl+c quits even from a text input, where q is just a letter.
func TestCtrlCQuitsFromInput(t *testing.T) {
	a := demoApp(t, 100, 30)
	press(a, "2", "down", "enter")
	if press(a, "q") || !a.bank.Editing() {
		t.Fatal("q in the wording editor quit or closed it")
	}
	_, cmd := a.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	if !drive(a, cmd) { // the tab asks the App to quit (tab.QuitMsg)
		t.Fatal("ctrl+c in the editor did not quit")
	}
}

// The terminal's background colour picks the light or the dark palette.
func TestBackgroundColour(t *testing.T) {
	a := demoApp(t, 100, 30)
	a.Update(tea.BackgroundColorMsg{Color: color.White})
	if a.styles.Tokens.Fg != styles.TokensFor(false).Fg {
		t.Error("a white background did not get the light palette")
	}
	a.Update(tea.BackgroundColorMsg{Color: color.Black})
	if a.styles.Tokens.Fg != styles.TokensFor(true).Fg {
		t.Error("a black background did not get the dark palette")
	}
}

// A click on a form row selects it; a click on the right pane focuses it.
func TestRunFormClick(t *testing.T) {
	a := demoApp(t, 100, 30)
	press(a, "3")
	// Row i of the form is at y = header (2) + border (1) + title (1) + i.
	a.Update(tea.MouseClickMsg{X: 5, Y: 2 + 2 + 5, Button: tea.MouseLeft})
	if a.run.form.cursor != 5 || a.run.focusRight {
		t.Fatalf("click on row 5: cursor %d, right %v", a.run.form.cursor, a.run.focusRight)
	}
	a.Update(tea.MouseClickMsg{X: 90, Y: 10, Button: tea.MouseLeft})
	if !a.run.focusRight {
		t.Fatal("click on the estimate did not focus it")
	}
}
