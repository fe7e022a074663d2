package ui

import (
	"image/color"
	"strings"
	"testing"
	"time"

	runtab "github.com/prism-eval/prism/ui/tabs/run"

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
	if a.run.Handle() == nil {
		t.Fatalf("run did not start: %v", a.run.Live().Err())
	}
	return g
}

func TestPauseResumeCancel(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 100, 30)
	drive(a, a.Init())
	startHeld(t, a, 50)
	run := a.run.Handle()
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
	for a.run.Live().Applied() < 50 {
		a.Update(runtab.Drain(run)())
	}
	if !strings.Contains(frame(a), "3 Run 2%") { // 50/2280
		t.Errorf("the Run tab does not show progress:\n%s", strings.SplitN(frame(a), "\n", 2)[0])
	}
	press(a, "3", "x")
	if a.run.Live().Phase() != runtab.PhaseCanceling {
		t.Fatalf("x: phase %d, want canceling", a.run.Live().Phase())
	}
	// Drain to the end: the held requests are abandoned, not failed.
	for a.run.Handle() != nil {
		_, cmd := a.Update(runtab.Drain(run)())
		if m, ok := cmd().(runtab.DoneMsg); ok {
			drive(a, func() tea.Msg { return m })
		}
	}
	lr := a.run.Live()
	if lr.Phase() != runtab.PhaseDone || lr.Summary() == nil || !lr.Summary().Canceled {
		t.Fatalf("after cancel: phase %d summary %+v", lr.Phase(), lr.Summary())
	}
	if (*lr.Progress()).Done != 50 || (*lr.Progress()).Failed != 0 {
		t.Errorf("canceled run: done %d failed %d, want 50 and 0", (*lr.Progress()).Done, (*lr.Progress()).Failed)
	}
	if f := frame(a); !strings.Contains(f, "canceled") {
		t.Errorf("frame does not say canceled:\n%s", f)
	}
	// The estimate now counts the 50 stored answers, and a new run resumes.
	if a.run.Plan() == nil || a.run.Plan().Estimate.Answered != 50 {
		t.Fatalf("re-estimate after cancel: %+v", a.run.Plan())
	}
}

func TestQuitAsksDuringRun(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 100, 30)
	drive(a, a.Init())
	startHeld(t, a, 0)
	run := a.run.Handle()
	if press(a, "q") {
		t.Fatal("q quit with a run in flight")
	}
	if !strings.Contains(frame(a), "Cancel it and quit?") {
		t.Fatalf("no confirmation:\n%s", frame(a))
	}
	press(a, "n")
	if a.modal != nil || a.run.Handle() == nil || run.Snapshot().Paused {
		t.Fatal("n did not keep the run going")
	}
	press(a, "q")
	press(a, "y")
	if a.run.Live().Phase() != runtab.PhaseCanceling || !a.quitAfterRun {
		t.Fatal("y did not cancel the run")
	}
	// The program quits once the run has stored what it finished.
	var quit bool
	for !quit {
		_, cmd := a.Update(runtab.Drain(run)())
		if cmd != nil {
			if m, ok := cmd().(runtab.DoneMsg); ok {
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
	t.Parallel()
	s := demoStudy(t)
	s.Store = nil
	a := New(s)
	a.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	drive(a, a.Init())
	press(a, "3", "s")
	if a.run.Live() != nil {
		t.Fatal("a run started without a workspace")
	}
	if f := frame(a); !strings.Contains(f, "no workspace is open") {
		t.Fatalf("no explanation:\n%s", f)
	}
}

// An invalid form value shows the field's error in the estimate pane.
func TestRunFormErrorInPlace(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 100, 30)
	drive(a, a.Init())
	setConcurrency(a, 0)
	if f := frame(a); !strings.Contains(f, "concurrency: 0, want at least 1") {
		t.Fatalf("form error not shown:\n%s", f)
	}
	press(a, "s")
	if a.run.Live() != nil {
		t.Fatal("a run started with an invalid form")
	}
}

// ctrl+c quits even from a text input, where q is just a letter.
func TestCtrlCQuitsFromInput(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	a := demoApp(t, 100, 30)
	press(a, "3")
	// Row i of the form is at y = header (2) + border (1) + title (1) + i.
	a.Update(tea.MouseClickMsg{X: 5, Y: 2 + 2 + 5, Button: tea.MouseLeft})
	if a.run.Cursor() != 5 || a.run.FocusRight() {
		t.Fatalf("click on row 5: cursor %d, right %v", a.run.Cursor(), a.run.FocusRight())
	}
	a.Update(tea.MouseClickMsg{X: 90, Y: 10, Button: tea.MouseLeft})
	if !a.run.FocusRight() {
		t.Fatal("click on the estimate did not focus it")
	}
}
