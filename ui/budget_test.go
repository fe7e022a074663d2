package ui

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/budget"
	"github.com/prism-eval/prism/ui/tabs/selection"
	"github.com/prism-eval/prism/ui/widgets"
)

// TestBudgetCurveView: b on the Selection tab evaluates the budget
// curve of the stored answers in a job and draws it in the left pane; the
// report is budget.Evaluate's on the same answers, and the reach
// lines on screen are its numbers. b again shows the subset-size curve.
// Golden frames: the curve at every golden size.
func TestBudgetCurveView(t *testing.T) {
	t.Parallel()
	a := fixtureApp(t, fixtureScreened, goldenSizes[1][0], goldenSizes[1][1])
	press(a, "4", "b")
	b := a.sel.BudgetJob()
	if b.Job != nil || b.Err != nil || a.sel.BudgetReport() == nil || !a.sel.BudgetShown() {
		t.Fatalf("budget: job %v, err %v, shown %v", b.Job != nil, b.Err, a.sel.BudgetShown())
	}
	k, _ := a.currentKey()
	rows, labels, err := a.study.Store.FitInput(context.Background(), k.Dataset, k.Judge, k.BankHash)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := budget.Evaluate(context.Background(), rows, labels, budget.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := a.sel.BudgetReport()
	if len(got.Points) != len(want.Points) || math.Abs(got.Points[1].Mean-want.Points[1].Mean) > 1e-12 {
		t.Fatalf("%d points, full %v; want %d, %v", len(got.Points), got.Points[1].Mean, len(want.Points), want.Points[1].Mean)
	}
	f := frame(a)
	if !strings.Contains(f, fmt.Sprintf("Budget curve · spearman · %d contexts", want.NContexts)) {
		t.Errorf("no budget title:\n%s", f)
	}
	for _, c := range want.Reach {
		if c.Point < 0 || c.Family == budget.FamilyVanilla || c.Family == budget.FamilyFull {
			continue
		}
		p := want.Points[c.Point]
		line := lineWith(f, fmt.Sprintf("│ %-11s %-6s ", selection.BudgetName(c.Family), strings.TrimPrefix(p.Label(), p.Family+" ")))
		if line == "" || !strings.Contains(line, fmt.Sprintf("%5.1f%%  %s  [%.3f, %.3f]", 100*p.Fraction, widgets.Mean4(p.Mean), slices.Min(p.FoldMeans), slices.Max(p.FoldMeans))) {
			t.Errorf("reach of %s (%.1f%%, %s) missing:\n%s", c.Family, 100*p.Fraction, widgets.Mean4(p.Mean), f)
		}
	}
	if !strings.Contains(f, "F") || !strings.Contains(f, "V") || !strings.Contains(f, "┄") {
		t.Errorf("chart marks missing:\n%s", f)
	}
	g := goldenFrames{}
	g.capture(a, "budget")
	press(a, "b")
	if f := frame(a); strings.Contains(f, "Budget curve") || !strings.Contains(f, "Subset-size curve") {
		t.Errorf("b did not hide the budget curve:\n%s", f)
	}
	g.check(t)
}
