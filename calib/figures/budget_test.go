package figures

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/budget"
)

// budgetReport is a hand-made curve: Vanilla, the full bank, two static
// points and two adaptive points with paired intervals.
func budgetReport() *budget.Report {
	tau := func(x float64) *float64 { return &x }
	return &budget.Report{Metric: "spearman", FullCalls: 33, BaseCalls: 1, Tolerance: 0.005, Points: []budget.Point{
		{Family: budget.FamilyVanilla, Calls: 1, Mean: 0.31, VsFull: -0.10, VsFullCI: [2]float64{-0.14, -0.06}},
		{Family: budget.FamilyFull, Calls: 33, Mean: 0.41},
		{Family: budget.FamilyUnits, Size: 1, Calls: 5, Mean: 0.33, VsFull: -0.08, VsFullCI: [2]float64{-0.1, -0.05}},
		{Family: budget.FamilyUnits, Size: 2, Calls: 9, Mean: 0.36, VsFull: -0.05, VsFullCI: [2]float64{-0.07, -0.03}},
		{Family: budget.FamilyAdaptive, Tau: tau(1), Calls: 21, Mean: 0.412, VsFull: 0.002, VsFullCI: [2]float64{-0.02, 0.03}},
		{Family: budget.FamilyAdaptive, Tau: tau(2), Calls: 14, Mean: 0.39, VsFull: -0.02, VsFullCI: [2]float64{-0.25, 0.01}},
	}}
}

// The budget figure's axes span every mark, the drawn intervals (paired,
// about the point: 0.39 − 0.23 = 0.16 at the lowest, 0.412 + 0.028 = 0.44 at the highest) and full − tolerance;
// SaveBudget writes a PNG at least 1,200 px wide and an SVG and refuses
// other names.
func TestBudgetFigure(t *testing.T) {
	r := budgetReport()
	p, err := Budget(r)
	if err != nil {
		t.Fatal(err)
	}
	if !(p.X.Min <= 1 && p.X.Max >= 33) {
		t.Errorf("x axis %g..%g does not span 1..33 calls", p.X.Min, p.X.Max)
	}
	if !(p.Y.Min <= 0.16 && p.Y.Max >= 0.44) {
		t.Errorf("y axis %g..%g does not span the interval ends 0.16..0.44", p.Y.Min, p.Y.Max)
	}
	dir := t.TempDir()
	for _, name := range []string{"b.png", "b.svg"} {
		if err := SaveBudget(r, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if w, _ := pngSize(t, filepath.Join(dir, "b.png")); w < minPNGWidth {
		t.Errorf("PNG %d px wide, want at least %d", w, minPNGWidth)
	}
	if svg, _ := os.ReadFile(filepath.Join(dir, "b.svg")); !strings.Contains(string(svg), "<svg") {
		t.Error("no SVG written")
	}
	if err := SaveBudget(r, filepath.Join(dir, "b.pdf")); err == nil || !strings.Contains(err.Error(), ".png or .svg") {
		t.Errorf("b.pdf: %v", err)
	}
}
