package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	runtab "github.com/prism-eval/prism/ui/tabs/run"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
)

// The sizes of the goldens of the Run tab's states.
var stateSizes = [][2]int{{80, 24}, {120, 36}}

// goldenAt compares a's frame at each of stateSizes with its golden.
func goldenAt(t *testing.T, a *App, check func(t *testing.T, f string)) {
	t.Helper()
	for _, size := range stateSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			a.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			f := frame(a)
			check(t, f)
			golden.RequireEqual(t, f)
		})
	}
}

// helpBar is the last line of a frame.
func helpBar(f string) string {
	lines := strings.Split(strings.TrimRight(f, "\n"), "\n")
	return lines[len(lines)-1]
}

// Without a run, the help bar offers start, not pause or cancel.
func TestRunHelpWithoutRun(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	drive(a, a.Init())
	press(a, "3")
	bar := helpBar(frame(a))
	if strings.Contains(bar, "pause") || strings.Contains(bar, "cancel") || !strings.Contains(bar, "s start") {
		t.Errorf("help bar without a run: %q", bar)
	}
}

// A paused run says so: its rate and ETA are those of its active time,
// the ETA is the time left once resumed, and p resumes.
func TestGoldenRunPaused(t *testing.T) {
	t.Parallel()
	a := heldDemoRun(t, 80, 24, 300)
	defer stopRun(t, a)
	press(a, "p")
	if !(*a.run.Live().Progress()).Paused {
		t.Fatal("p did not pause")
	}
	freezeClock(a)
	goldenAt(t, a, func(t *testing.T, f string) {
		if !strings.Contains(f, "paused") || !strings.Contains(f, "once resumed") {
			t.Errorf("paused frame lacks its state or ETA:\n%s", f)
		}
		if bar := helpBar(f); !strings.Contains(bar, "p resume") || !strings.Contains(bar, "x cancel") || strings.Contains(bar, "s start") {
			t.Errorf("help bar while paused: %q", bar)
		}
	})
}

// A canceled run has no ETA, and nothing to pause or cancel.
func TestGoldenRunCanceled(t *testing.T) {
	t.Parallel()
	a := heldDemoRun(t, 80, 24, 300)
	press(a, "x")
	drive(a, runtab.Drain(a.run.Handle()))
	if a.run.Live().Phase() != runtab.PhaseDone || a.run.Live().Summary() == nil || !a.run.Live().Summary().Canceled {
		t.Fatalf("not canceled: %+v", a.run.Live().Summary())
	}
	if (*a.run.Live().Progress()).ETA != 0 {
		t.Errorf("the canceled run's summary has ETA %v", (*a.run.Live().Progress()).ETA)
	}
	freezeClock(a)
	(*a.run.Live().Progress()).ETA = 12345e9 // even an ETA in the progress is not shown
	goldenAt(t, a, func(t *testing.T, f string) {
		if !strings.Contains(f, "canceled") || strings.Contains(f, "ETA") {
			t.Errorf("canceled frame shows an ETA or lacks its state:\n%s", f)
		}
		if bar := helpBar(f); strings.Contains(bar, "pause") || strings.Contains(bar, "cancel") || !strings.Contains(bar, "s start") {
			t.Errorf("help bar after the run: %q", bar)
		}
	})
}

// A reopened workspace whose study is fully answered shows the stored
// study on the Run tab: its stored counts and the final ratio panel
// with the Δ distributions of the stored answers, not a run of nothing.
func TestGoldenRunReopened(t *testing.T) {
	t.Parallel()
	a := fixtureApp(t, fixtureScreened, 80, 24)
	press(a, "3")
	lr := a.run.Live()
	if lr == nil || lr.Phase() != runtab.PhaseStored {
		t.Fatalf("Run tab on a fully answered study: %+v", lr)
	}
	p := a.run.Plan()
	want, err := a.study.Store.Progress(context.Background(), p.Spec.Dataset.Name, p.Spec.JudgeName, p.BankHash)
	if err != nil {
		t.Fatal(err)
	}
	if lr.Stored() != want || want.Answered == 0 {
		t.Fatalf("stored progress %+v, want %+v", lr.Stored(), want)
	}
	if runSignal(a) == nil || !runSignal(a).Final {
		t.Fatalf("no final ratio panel: %+v %v", runSignal(a), runSignalErr(a))
	}
	if h, _ := lr.Deltas(lr.Attributes()[0]); h == nil || h.AbsMax() == 0 {
		t.Errorf("no Δ distribution from the stored answers for %s", lr.Attributes()[0])
	}
	counts := fmt.Sprintf("%d/%d answered", want.Answered, want.Requests)
	goldenAt(t, a, func(t *testing.T, f string) {
		if !strings.Contains(f, "stored") || !strings.Contains(f, counts) || strings.Contains(f, "0/0") {
			t.Errorf("reopened frame lacks %q:\n%s", counts, f)
		}
		if bar := helpBar(f); strings.Contains(bar, "pause") || strings.Contains(bar, "cancel") {
			t.Errorf("help bar of the stored study: %q", bar)
		}
	})
	// s shows the same study: nothing is started.
	press(a, "s")
	if a.run.Handle() != nil || a.run.Live().Phase() != runtab.PhaseStored {
		t.Errorf("s on a fully answered study started a run: %+v", a.run.Live())
	}
}
