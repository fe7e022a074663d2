package run

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/ui/styles"
)

// applyResults feeds n scored results to lr, the i-th about context
// "c<first+i>" so that each row of the table names its result.
func applyResults(lr *Live, first, n int) {
	for i := range n {
		lr.Apply(engine.Event{Kind: engine.EventResult, Result: engine.Result{
			Context: fmt.Sprintf("c%d", first+i), Candidate: "S1", Probe: banks.ProbeBaseline, Score: 5, HasScore: true}})
	}
}

// tableContexts are the contexts of the latest-responses rows, top down.
func tableContexts(v *Tab, st *styles.Styles) []string {
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
	v := &Tab{live: NewLive(b, 9), width: 100, height: 12} // 12 − 2 − 2 − 1 − 1 = 6 rows
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
	v.focusRight = true
	lines = v.tableLines(st, 40, v.tableRows()+1)
	if last := lines[len(lines)-1]; last != st.Cursor.Render(ansi.Strip(last)) {
		t.Errorf("the cursor's row of an unfocused table: %q", last)
	}
	v.focusRight = false
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
