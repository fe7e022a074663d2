package ui

import (
	"fmt"
	"math"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/ui/tab"
)

// setFormField types value into the Run tab's form field key.
func setFormField(t *testing.T, a *App, key, value string) {
	t.Helper()
	press(a, "3")
	if !a.run.FormShown() {
		press(a, "e")
	}
	for i := 0; a.run.Field() != key; i++ {
		if i > 2*len(a.run.Fields()) {
			t.Fatalf("no form field %q", key)
		}
		press(a, "down")
	}
	press(a, "enter", "ctrl+u")
	typeText(a, value)
	press(a, "enter")
}

// enter on a row of the Run tab's latest responses opens the Inspect
// tab on that candidate (as enter on the Data tab does) and esc
// returns to the Run tab; a click selects a row.
func TestRunRowInspect(t *testing.T) {
	t.Parallel()
	a := finishedRun(t, 100, 30)
	if h := ansi.Strip(a.helpView()); !strings.Contains(h, "enter inspect") || strings.Contains(h, "pause") {
		t.Errorf("help of a finished run: %q", h)
	}
	press(a, "enter") // no row selected yet
	if a.tab != tab.Run {
		t.Fatalf("enter without a row went to screen %d", a.tab)
	}
	press(a, "down", "down", "down")
	r, ok := a.run.Selected()
	if want := a.run.Live().At(a.run.Live().Applied() - 3); !ok || r != want {
		t.Fatalf("selected %+v, want the third newest %+v", r, want)
	}
	press(a, "enter")
	if a.tab != tab.Inspect || a.insp.Busy() || a.insp.Err() != nil || a.insp.Inspection() == nil {
		t.Fatalf("inspect: screen %d, busy %v, err %v", a.tab, a.insp.Busy(), a.insp.Err())
	}
	if a.insp.Inspection().Context != r.Context || a.insp.Inspection().Cand != r.Candidate {
		t.Errorf("inspected %s/%s, want %s/%s", a.insp.Inspection().Context, a.insp.Inspection().Cand, r.Context, r.Candidate)
	}
	if c, cand := a.data.Context(), a.data.Candidate(); c.ID != r.Context || cand.ID != r.Candidate {
		t.Errorf("Data tab on %s/%s, want %s/%s", c.ID, cand.ID, r.Context, r.Candidate)
	}
	if !strings.Contains(frame(a), "Inspect · "+r.Context+" / "+r.Candidate) {
		t.Errorf("frame lacks the inspected candidate:\n%s", frame(a))
	}
	if len(a.insp.Inspection().Replies) == 0 {
		t.Error("the inspected candidate has no stored replies")
	}
	// Without a fit there is no correction; f fits here and the screen
	// shows the new fit's correction of the same candidate.
	if a.insp.Inspection().Fold != 0 || !math.IsNaN(a.insp.Inspection().Corrected) {
		t.Fatalf("a correction without a fit: fold %d, ŷ %g", a.insp.Inspection().Fold, a.insp.Inspection().Corrected)
	}
	press(a, "f")
	if a.fit.Report() == nil || a.fit.Err() != nil || a.insp.Busy() {
		t.Fatalf("f on Inspect: report %v, err %v, busy %v", a.fit.Report() != nil, a.fit.Err(), a.insp.Busy())
	}
	if ins := a.insp.Inspection(); a.tab != tab.Inspect || ins.Cand != r.Candidate || ins.Fold == 0 || math.IsNaN(ins.Corrected) {
		t.Fatalf("after f: screen %d, %s, fold %d, ŷ %g", a.tab, ins.Cand, ins.Fold, ins.Corrected)
	}
	if f := frame(a); !strings.Contains(f, fmt.Sprintf("outer fold %d,", a.insp.Inspection().Fold)) {
		t.Errorf("frame lacks the fold of the correction:\n%s", f)
	}
	press(a, "esc")
	if a.tab != tab.Run {
		t.Fatalf("esc went to screen %d, want Run", a.tab)
	}
	// Row i of the table is at y = header (2) + progress (2) + border,
	// title (2) + column header (1) + i.
	a.Update(tea.MouseClickMsg{X: 5, Y: 2 + 2 + 2 + 1 + 5, Button: tea.MouseLeft})
	if r, _ := a.run.Selected(); r != a.run.Live().At(a.run.Live().Applied()-1-5) {
		t.Errorf("click on row 5 selected %+v", r)
	}
}
