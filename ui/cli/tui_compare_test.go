package cli

import (
	"context"
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/prism-eval/prism/ui"
)

// On the demo, 8 then c compares the simulator's two variants, each
// labelled a simulator, their profiles side by side with the paired
// difference (issue: the first hour).
func TestDemoCompareTab(t *testing.T) {
	s, cleanup, err := openStudy(context.Background(), "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	app := ui.New(s)
	drive(app, app.Init())
	app.Update(tea.WindowSizeMsg{Width: 100, Height: 70})
	for _, k := range []string{"8", "c"} {
		_, cmd := app.Update(tea.KeyPressMsg{Code: rune(k[0]), Text: k})
		drive(app, cmd)
	}
	v := ansi.Strip(app.View().Content)
	if os.Getenv("PRISM_SHOW_COMPARE") != "" {
		t.Log("\n" + v)
	}
	for _, want := range []string{
		"A offline-strict (simulator)", "B offline-verbose (simulator)", // uncut at 100 columns
		"a_k", "e_k", "A−B", "Opposing",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the Compare tab lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "not paired") && !strings.Contains(v, "A−X") {
		t.Errorf("the demo's variants' folds are the same contexts, yet not paired:\n%s", v)
	}
	// Side by side: under an attribute, a line per variant with its a_k
	// and e_k (two fold ranges), then their difference.
	lines := strings.Split(v, "\n")
	sides := 0
	for i := 0; i+2 < len(lines); i++ {
		if strings.Contains(lines[i], "A offline-strict (simulator) ") && strings.Count(lines[i], "[") == 2 &&
			strings.Contains(lines[i+1], "B offline-verbose (simulator) ") && strings.Count(lines[i+1], "[") == 2 &&
			strings.Contains(lines[i+2], "A−B ") && strings.Count(lines[i+2], "[") == 2 {
			sides++
		}
	}
	if sides == 0 {
		t.Errorf("no attribute shows both variants' profiles and their paired difference:\n%s", v)
	}
}
