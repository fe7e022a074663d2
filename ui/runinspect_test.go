package ui

import (
	"fmt"
	"math"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
)

// setFormField types value into the Run tab's form field key.
func setFormField(t *testing.T, a *App, key, value string) {
	t.Helper()
	press(a, "3")
	if !a.run.formShown() {
		press(a, "e")
	}
	for i := 0; a.run.form.fields[a.run.form.cursor].key != key; i++ {
		if i > 2*len(a.run.form.fields) {
			t.Fatalf("no form field %q", key)
		}
		press(a, "down")
	}
	press(a, "enter", "ctrl+u")
	typeText(a, value)
	press(a, "enter")
}

// applyResults feeds n scored results to lr, the i-th about context
// "c<first+i>" so that each row of the table names its result.
func applyResults(lr *liveRun, first, n int) {
	for i := range n {
		lr.Apply(engine.Event{Kind: engine.EventResult, Result: engine.Result{
			Context: fmt.Sprintf("c%d", first+i), Candidate: "S1", Probe: banks.ProbeBaseline, Score: 5, HasScore: true}})
	}
}

// tableContexts are the contexts of the latest-responses rows, top down.
func tableContexts(v *runTab, st *styles.Styles) []string {
	var out []string
	for _, ln := range v.tableLines(st, 40, v.tableRows()+1)[1:] {
		if f := strings.Fields(ansi.Strip(ln)); len(f) > 0 {
			out = append(out, f[0])
		}
	}
	return out
}

// The cursor of the latest responses stays on its result while newer
// results push the table down, scrolls with it, and goes when the result
// leaves the ring.
func TestRunCursorFollowsResult(t *testing.T) {
	st := styles.New(true)
	b, err := banks.Builtin("quality")
	if err != nil {
		t.Fatal(err)
	}
	v := &runTab{live: newLiveRun(b, 9), width: 100, height: 12} // 12 − 2 − 2 − 1 − 1 = 6 rows
	if v.tableRows() != 6 {
		t.Fatalf("tableRows %d, want 6", v.tableRows())
	}
	v.Move(1) // no results: nothing to select
	if _, ok := v.Selected(); ok {
		t.Fatal("a row is selected in an empty table")
	}
	applyResults(v.live, 0, 10)
	v.Move(1) // the first move selects the newest
	if r, ok := v.Selected(); !ok || r.Context != "c9" {
		t.Fatalf("first move selected %+v, %v; want c9", r, ok)
	}
	v.Move(2) // down is older
	if r, _ := v.Selected(); r.Context != "c7" {
		t.Fatalf("two down: %s, want c7", r.Context)
	}
	applyResults(v.live, 10, 3) // c10..c12 arrive on top
	if r, _ := v.Selected(); r.Context != "c7" {
		t.Fatalf("after new results the cursor is on %s, want c7", r.Context)
	}
	if got := strings.Join(tableContexts(v, st), " "); got != "c12 c11 c10 c9 c8 c7" {
		t.Errorf("table %q, want c12…c7", got)
	}
	// The cursor's row is highlighted: Selected with the pane focused,
	// Cursor without.
	lines := v.tableLines(st, 40, v.tableRows()+1)
	if last := lines[len(lines)-1]; last != st.Selected.Render(ansi.Strip(last)) {
		t.Errorf("the cursor's row is not highlighted: %q", last)
	}
	v.Focus(true)
	lines = v.tableLines(st, 40, v.tableRows()+1)
	if last := lines[len(lines)-1]; last != st.Cursor.Render(ansi.Strip(last)) {
		t.Errorf("the cursor's row of an unfocused table: %q", last)
	}
	v.Focus(false)
	v.Move(3) // c4: the table scrolls to keep it on the last row
	if got := strings.Join(tableContexts(v, st), " "); got != "c9 c8 c7 c6 c5 c4" {
		t.Errorf("scrolled table %q, want c9…c4", got)
	}
	v.Move(100) // clamped at the oldest kept
	if r, _ := v.Selected(); r.Context != "c0" {
		t.Errorf("bottom: %s, want c0", r.Context)
	}
	v.Move(-1000)
	if r, _ := v.Selected(); r.Context != "c12" {
		t.Errorf("top: %s, want c12", r.Context)
	}
	v.Move(5) // c7
	applyResults(v.live, 13, maxRecent)
	if r, ok := v.Selected(); ok {
		t.Fatalf("a result that left the ring is still selected: %s", r.Context)
	}
	v.Move(1)
	if r, _ := v.Selected(); r.Context != fmt.Sprintf("c%d", 12+maxRecent) {
		t.Errorf("after eviction the first move selected %s, want the newest", r.Context)
	}
	v.showForm = true
	if _, ok := v.Selected(); ok {
		t.Error("a row is selected while the form is shown")
	}
}

// enter on a row of the Run tab's latest responses opens the Inspect
// tab on that candidate (as enter on the Data tab does) and esc
// returns to the Run tab; a click selects a row.
func TestRunRowInspect(t *testing.T) {
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
	if want := a.run.live.At(a.run.live.nRecent - 3); !ok || r != want {
		t.Fatalf("selected %+v, want the third newest %+v", r, want)
	}
	press(a, "enter")
	if a.tab != tab.Inspect || a.insp.busy || a.insp.err != nil || a.insp.ins == nil {
		t.Fatalf("inspect: screen %d, busy %v, err %v", a.tab, a.insp.busy, a.insp.err)
	}
	if a.insp.ins.context != r.Context || a.insp.ins.cand != r.Candidate {
		t.Errorf("inspected %s/%s, want %s/%s", a.insp.ins.context, a.insp.ins.cand, r.Context, r.Candidate)
	}
	if c, cand := a.data.Context(), a.data.Candidate(); c.ID != r.Context || cand.ID != r.Candidate {
		t.Errorf("Data tab on %s/%s, want %s/%s", c.ID, cand.ID, r.Context, r.Candidate)
	}
	if !strings.Contains(frame(a), "Inspect · "+r.Context+" / "+r.Candidate) {
		t.Errorf("frame lacks the inspected candidate:\n%s", frame(a))
	}
	if len(a.insp.ins.replies) == 0 {
		t.Error("the inspected candidate has no stored replies")
	}
	// Without a fit there is no correction; f fits here and the screen
	// shows the new fit's correction of the same candidate.
	if a.insp.ins.fold != 0 || !math.IsNaN(a.insp.ins.corrected) {
		t.Fatalf("a correction without a fit: fold %d, ŷ %g", a.insp.ins.fold, a.insp.ins.corrected)
	}
	press(a, "f")
	if a.fit.rep == nil || a.fit.err != nil || a.insp.busy {
		t.Fatalf("f on Inspect: report %v, err %v, busy %v", a.fit.rep != nil, a.fit.err, a.insp.busy)
	}
	if ins := a.insp.ins; a.tab != tab.Inspect || ins.cand != r.Candidate || ins.fold == 0 || math.IsNaN(ins.corrected) {
		t.Fatalf("after f: screen %d, %s, fold %d, ŷ %g", a.tab, ins.cand, ins.fold, ins.corrected)
	}
	if f := frame(a); !strings.Contains(f, fmt.Sprintf("outer fold %d,", a.insp.ins.fold)) {
		t.Errorf("frame lacks the fold of the correction:\n%s", f)
	}
	press(a, "esc")
	if a.tab != tab.Run {
		t.Fatalf("esc went to screen %d, want Run", a.tab)
	}
	// Row i of the table is at y = header (2) + progress (2) + border,
	// title (2) + column header (1) + i.
	a.Update(tea.MouseClickMsg{X: 5, Y: 2 + 2 + 2 + 1 + 5, Button: tea.MouseLeft})
	if r, _ := a.run.Selected(); r != a.run.live.At(a.run.live.nRecent-1-5) {
		t.Errorf("click on row 5 selected %+v", r)
	}
}
