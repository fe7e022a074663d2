package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prism-eval/prism/ui/ratio"
	runtab "github.com/prism-eval/prism/ui/tabs/run"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/prism-eval/prism/ui/tab"
)

var goldenSizes = [][2]int{{80, 24}, {160, 48}}

// setConcurrency sets the Run form's concurrency to n through the keys a
// user presses (one worker answers in plan order, so a run's table is the
// same every time).
func setConcurrency(a *App, n int) {
	press(a, "3")
	for i := 0; a.run.Field() != runtab.FieldConc; i++ {
		if i > len(a.run.Fields()) {
			panic("no concurrency field")
		}
		press(a, "down")
	}
	press(a, "enter", "ctrl+u")
	typeText(a, fmt.Sprint(n))
	press(a, "enter")
}

// freezeClock replaces the run's timing (elapsed, rate, ETA) with fixed
// values, so a frame of a real run is the same on every machine.
func freezeClock(a *App) {
	p := &(*a.run.Live().Progress())
	p.Elapsed, p.Rate, p.ETA = 3*time.Second, 760, 0
	p.OldestSent = p.At // a held request never reads as a quiet judge in a golden
	if p.Done < p.Total {
		p.ETA = time.Duration(float64(p.Total-p.Done)/p.Rate*float64(time.Second)) / time.Second * time.Second
	}
}

func TestGoldenScreens(t *testing.T) {
	t.Parallel()
	for _, size := range goldenSizes {
		for _, sc := range []struct {
			name string
			keys []string
		}{
			{"data", nil},
			{"data-candidate", []string{"down", "right", "down"}},
			{"bank", []string{"2"}},
			{"bank-probe", []string{"2", "down", "down"}},
			{"bank-editing", []string{"2", "down", "enter"}},
			{"bank-edited", []string{"2", "down", "enter", "ctrl+u", "Weigh factual accuracy heavily.", "enter"}},
			{"help", []string{"?"}},
			{"run-form", []string{"3"}},
		} {
			t.Run(fmt.Sprintf("%s-%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				a := demoApp(t, size[0], size[1])
				drive(a, a.Init())
				for _, k := range sc.keys {
					if len(k) > 1 && strings.ContainsRune(k, ' ') {
						typeText(a, k)
						continue
					}
					press(a, k)
				}
				golden.RequireEqual(t, frame(a))
			})
		}
	}
}

// The Run tab after an offline run on the demo has finished: the
// final ratio panel (2,000 resamples, seed 42) over every score.
func TestGoldenRunFinished(t *testing.T) {
	t.Parallel()
	// One run serves both sizes: the frame is drawn from the state and the
	// current size alone.
	a := finishedRun(t, goldenSizes[0][0], goldenSizes[0][1])
	if runSignal(a) == nil || !runSignal(a).Final {
		t.Fatalf("no final ratio panel: %+v %v", runSignal(a), runSignalErr(a))
	}
	freezeClock(a)
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			a.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			golden.RequireEqual(t, frame(a))
		})
	}
}

// The Run tab in the middle of a run: 300 of 2,280 requests answered,
// the live ratio panel computed from the 300 stored scores.
func TestGoldenRunLive(t *testing.T) {
	t.Parallel()
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			const answered = 300
			a := heldDemoRun(t, size[0], size[1], answered)
			defer stopRun(t, a)
			if !a.run.Active() || a.run.Live().Applied() != answered {
				t.Fatalf("active %v, results %d, want %d", a.run.Active(), a.run.Live().Applied(), answered)
			}
			freezeClock(a)
			f := frame(a)
			if !strings.Contains(f, "running") || !strings.Contains(f, "300/2280") {
				t.Fatalf("live frame lacks status or counts:\n%s", f)
			}
			golden.RequireEqual(t, f)
		})
	}
}

// heldDemoRun is the demo App at w×h in the middle of a one-worker run:
// answered requests answered and stored, the rest held (stopRun ends it).
func heldDemoRun(t *testing.T, w, h, answered int) *App {
	t.Helper()
	a := demoApp(t, w, h)
	drive(a, a.Init())
	setConcurrency(a, 1)
	gate(t, a, answered)
	startGated(t, a, answered)
	return a
}

// startGated presses s and feeds the App until the gated judge has let
// `answered` requests through and they are stored, then computes the live
// ratio panel from them.
func startGated(t *testing.T, a *App, answered int) {
	t.Helper()
	_, cmd := a.Update(keyMsg("s"))
	_, next := a.Update(cmd()) // runStartedMsg
	if a.run.Handle() == nil {
		t.Fatalf("run did not start: %v", a.run.Live().Err())
	}
	deadline := time.Now().Add(time.Minute)
	for a.run.Handle().Snapshot().Written < answered {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d answers stored", a.run.Handle().Snapshot().Written, answered)
		}
		time.Sleep(5 * time.Millisecond)
	}
	_ = next // its signal command would race the store; computed below
	for a.run.Live().Applied() < answered {
		a.Update(runtab.Drain(a.run.Handle())())
	}
	a.Update(a.run.SignalNow(false)())
	if runSignal(a) == nil || runSignal(a).Scores != answered {
		t.Fatalf("live panel: %+v %v", runSignal(a), runSignalErr(a))
	}
}

// stopRun cancels a's run and waits for it to end.
func stopRun(t *testing.T, a *App) {
	t.Helper()
	if a.run.Handle() != nil {
		a.run.Handle().Cancel()
		if _, err := a.run.Handle().Wait(); err != nil {
			t.Error(err)
		}
	}
}

// Every frame fills the terminal exactly: no line wider than the terminal
// and exactly as many lines as it is high, at any size from 80×24 up.
func TestFrameFitsTerminal(t *testing.T) {
	t.Parallel()
	sizes := [][2]int{{80, 24}, {81, 25}, {100, 30}, {132, 43}, {160, 48}, {237, 61}}
	keysets := [][]string{nil, {"right", "down"}, {"2"}, {"2", "right", "down"}, {"?"}, {"3"}, {"2", "a"}, {"2", "down", "enter"}, {"i"}, {"d"}, {"4"}, {"4", "r"}}
	// Every keyset, pressed at one size (each keyset at another) and
	// drawn at every size.
	for i, keys := range keysets {
		start := sizes[i%len(sizes)]
		a := demoApp(t, start[0], start[1])
		drive(a, a.Init())
		press(a, keys...)
		checkFits(t, a, start, fmt.Sprint(keys))
		for _, size := range sizes {
			a.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			checkFits(t, a, size, fmt.Sprintf("%v pressed at %v", keys, start))
		}
	}
	// A finished run, resized to every size; its signal on the Bank
	// tab and its selection, likewise. One run serves every size: the
	// frame is drawn from the state and the current size alone.
	a := demoApp(t, sizes[0][0], sizes[0][1])
	drive(a, a.Init())
	press(a, "3", "s")
	for _, size := range sizes {
		a.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		checkFits(t, a, size, "finished run")
	}
	press(a, "2")
	for _, size := range sizes {
		a.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		checkFits(t, a, size, "bank signal after a run")
	}
	press(a, "4", "r")
	for _, size := range sizes {
		a.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		checkFits(t, a, size, "selection")
	}
}

func checkFits(t *testing.T, a *App, size [2]int, what string) {
	t.Helper()
	lines := strings.Split(frame(a), "\n")
	if len(lines) != size[1] {
		t.Errorf("%v %s: %d lines, want %d", size, what, len(lines), size[1])
	}
	for i, ln := range lines {
		if w := ansi.StringWidth(ln); w > size[0] {
			t.Errorf("%v %s: line %d is %d wide: %q", size, what, i, w, ln)
		}
	}
}

func TestNavigation(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 100, 30)
	ds := a.study.Dataset
	if !strings.Contains(frame(a), ds.Contexts[0].Candidates[0].Text[:20]) {
		t.Fatal("data screen does not show the first candidate's text")
	}
	press(a, "down")
	if got := a.data.Context().ID; got != ds.Contexts[1].ID {
		t.Fatalf("after down: context %s, want %s", got, ds.Contexts[1].ID)
	}
	press(a, "right", "down")
	if got := a.data.Candidate().ID; got != ds.Contexts[1].Candidates[1].ID {
		t.Fatalf("after right, down: candidate %s, want %s", got, ds.Contexts[1].Candidates[1].ID)
	}
	press(a, "tab")
	if a.tab != tab.Bank {
		t.Fatal("tab did not switch to the bank screen")
	}
	// The preview is the exact request for the selected candidate.
	f := frame(a)
	if !strings.Contains(f, "system") || !strings.Contains(f, "user") {
		t.Fatalf("bank screen shows no request preview:\n%s", f)
	}
	press(a, "down")
	cond := a.bank.Conditions()[1]
	if !strings.Contains(frame(a), cond.Probe) {
		t.Fatalf("preview title does not name probe %s", cond.Probe)
	}
	press(a, "tab")
	if a.tab != tab.Run {
		t.Fatal("tab did not switch to the run screen")
	}
	press(a, "shift+tab")
	if a.tab != tab.Bank {
		t.Fatal("shift+tab did not go back to the bank screen")
	}
	// A click on the first tab goes back to Data; on the third, to Run.
	a.Update(tea.MouseClickMsg{X: len("prism ") + 1, Y: 0, Button: tea.MouseLeft})
	if a.tab != tab.Data {
		t.Fatal("click on the Data tab did not switch screens")
	}
	x := strings.Index(frame(a), "3 Run")
	a.Update(tea.MouseClickMsg{X: x + 1, Y: 0, Button: tea.MouseLeft})
	if a.tab != tab.Run {
		t.Fatal("click on the Run tab did not switch screens")
	}
	// The wheel moves the form cursor.
	a.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if a.run.Cursor() != 1 {
		t.Fatalf("wheel down: form cursor %d, want 1", a.run.Cursor())
	}
}

func TestTooSmall(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 40, 10)
	if !strings.Contains(frame(a), "needs at least") {
		t.Fatal("a tiny terminal should get a notice")
	}
}

// The whole flow on the demo in the real program: edit a wording, start
// an offline run, watch the ratio bars fill, see it finish, quit.
func TestProgramFlow(t *testing.T) {
	t.Parallel()
	s := demoStudy(t)
	orig := s.Bank.Hash()
	a := New(s)
	tm, waitFor := runProgram(t, a, programDeadline)
	waitFor("Contexts")
	// Edit the first + wording of accuracy.
	tm.Send(keyMsg("2"))
	waitFor("Request preview")
	tm.Send(keyMsg("down"))
	tm.Send(keyMsg("enter"))
	tm.Send(keyMsg("ctrl+u"))
	for _, r := range "Weigh factual accuracy heavily." {
		tm.Send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	tm.Send(keyMsg("enter"))
	waitFor("(edited)")
	tm.Send(keyMsg("3"))
	waitFor("to send   2280")
	tm.Send(keyMsg("s"))
	waitFor("final, B=2000")
	tm.Send(keyMsg("q"))
	waitFor("has unsaved edits") // the edited wording was never saved
	tm.Send(keyMsg("y"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(programDeadline))

	final := tm.FinalModel(t).(*App)
	lr := final.run.Live()
	if lr == nil || lr.Phase() != runtab.PhaseDone || lr.Err() != nil {
		t.Fatalf("run did not finish cleanly: %+v", lr)
	}
	if (*lr.Progress()).Done != 2280 || (*lr.Progress()).Failed != 0 {
		t.Fatalf("done %d failed %d, want 2280 and 0", (*lr.Progress()).Done, (*lr.Progress()).Failed)
	}
	if final.run.RunPlan().BankHash == orig {
		t.Fatal("the run used the original bank, not the edited one")
	}
	sig := runSignal(final)
	if sig == nil || !sig.Final || sig.Resamples != ratio.FinalResamples || sig.Scores != 2280 {
		t.Fatalf("final panel: %+v", sig)
	}
	for _, r := range sig.Rows {
		if !r.HasSignal || r.N == 0 || !(r.Ratio > 0) || !(r.Lo <= r.Ratio && r.Ratio <= r.Hi) {
			t.Errorf("unit %s: no ratio with an interval around it: %+v", r.Name, r)
		}
	}
	if len(sig.Rows) != 8 {
		t.Errorf("%d units, want the bank's 8 attributes", len(sig.Rows))
	}
	// Every Δ histogram filled: each attribute has 2 wordings × 60
	// candidates of each sign.
	for _, name := range lr.Attributes() {
		if plus, minus := lr.Deltas(name); plus.N() != 120 || minus.N() != 120 {
			t.Errorf("%s: %d Δ+ and %d Δ−, want 120 each", name, plus.N(), minus.N())
		}
	}
}
