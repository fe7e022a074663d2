package ui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/model"
)

func demoApp(t *testing.T, w, h int) *App {
	t.Helper()
	b, err := banks.Builtin("quality")
	if err != nil {
		t.Fatal(err)
	}
	a := New(Study{Dataset: model.Demo(), Bank: b, Judge: "offline (simulator)", Demo: true})
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return a
}

func press(a *App, keys ...string) {
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "tab":
			msg = tea.KeyPressMsg{Code: tea.KeyTab}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "right":
			msg = tea.KeyPressMsg{Code: tea.KeyRight}
		default:
			msg = tea.KeyPressMsg{Code: rune(k[0]), Text: k}
		}
		a.Update(msg)
	}
}

// frame is the plain text of the current view.
func frame(a *App) string { return ansi.Strip(a.View().Content) }

func TestGoldenScreens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		for _, sc := range []struct {
			name string
			keys []string
		}{
			{"data", nil},
			{"data-candidate", []string{"down", "right", "down"}},
			{"bank", []string{"2"}},
			{"bank-probe", []string{"2", "down", "down"}},
			{"help", []string{"?"}},
		} {
			t.Run(fmt.Sprintf("%s-%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				a := demoApp(t, size[0], size[1])
				press(a, sc.keys...)
				golden.RequireEqual(t, frame(a))
			})
		}
	}
}

// Every frame fills the terminal exactly: no line wider than the terminal
// and exactly as many lines as it is high, at any size from 80×24 up.
func TestFrameFitsTerminal(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {81, 25}, {100, 30}, {132, 43}, {160, 48}, {237, 61}} {
		for _, keys := range [][]string{nil, {"right", "down"}, {"2"}, {"2", "right", "down"}, {"?"}} {
			a := demoApp(t, size[0], size[1])
			press(a, keys...)
			lines := strings.Split(frame(a), "\n")
			if len(lines) != size[1] {
				t.Errorf("%v keys %v: %d lines, want %d", size, keys, len(lines), size[1])
			}
			for i, ln := range lines {
				if w := ansi.StringWidth(ln); w > size[0] {
					t.Errorf("%v keys %v: line %d is %d wide: %q", size, keys, i, w, ln)
				}
			}
		}
	}
}

func TestNavigation(t *testing.T) {
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
	if a.screen != screenBank {
		t.Fatal("tab did not switch to the bank screen")
	}
	// The preview is the exact request for the selected candidate.
	f := frame(a)
	if !strings.Contains(f, "system") || !strings.Contains(f, "user") {
		t.Fatalf("bank screen shows no request preview:\n%s", f)
	}
	press(a, "down")
	cond := a.bank.conds[1]
	if !strings.Contains(frame(a), cond.Probe) {
		t.Fatalf("preview title does not name probe %s", cond.Probe)
	}
	// A click on the first tab goes back to Data.
	a.Update(tea.MouseClickMsg{X: len("prism ") + 1, Y: 0, Button: tea.MouseLeft})
	if a.screen != screenData {
		t.Fatal("click on the Data tab did not switch screens")
	}
}

func TestTooSmall(t *testing.T) {
	a := demoApp(t, 40, 10)
	if !strings.Contains(frame(a), "needs at least") {
		t.Fatal("a tiny terminal should get a notice")
	}
}

// The real program: start, switch to the bank screen, quit.
func TestProgramFlow(t *testing.T) {
	b, err := banks.Builtin("quality")
	if err != nil {
		t.Fatal(err)
	}
	a := New(Study{Dataset: model.Demo(), Bank: b, Judge: "offline (simulator)", Demo: true})
	tm := teatest.NewTestModel(t, a, teatest.WithInitialTermSize(100, 30))
	teatest.WaitFor(t, tm.Output(), func(out []byte) bool {
		return bytes.Contains(out, []byte("Contexts"))
	}, teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyPressMsg{Code: '2', Text: "2"})
	teatest.WaitFor(t, tm.Output(), func(out []byte) bool {
		return bytes.Contains(out, []byte("Request preview"))
	}, teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if final := tm.FinalModel(t).(*App); final.screen != screenBank {
		t.Fatalf("final screen %d, want bank", final.screen)
	}
}
