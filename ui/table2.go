package ui

import (
	"math"
	"strconv"

	"github.com/prism-eval/prism/calib"
)

// The paper's Table 2 as the Fit tab, the Compare tab and the
// export show it when a report has rubric baselines (docs/protocol.md
// §12): rubric-based rows (the judge's SAJA and G-Eval ratings), then the
// rubric-free methods, each with its budget per candidate.

// The groups of Table 2.
const (
	groupRubric = "Rubric-based"
	groupFree   = "Rubric-free"
)

// t2Row is one row of Table 2.
type t2Row struct {
	group string
	key   string // the report's key: a baseline's name or a method's
	label string
	res   *calib.MethodResult
	// vsPRISM is a rubric row's paired difference from PRISM (nil for the
	// rubric-free rows, as in the paper).
	vsPRISM *calib.Diff
	budget  calib.Budget          // 0: not known
	base    *calib.BaselineResult // the rubric row's result, or nil
}

// table2 is r's rows: the rubric-based ones (none without baselines),
// then the rubric-free methods r has, in report order.
func table2(r *calib.Report) []t2Row {
	var rows []t2Row
	for _, n := range r.BaselineNames() {
		b := r.Baselines[n]
		rows = append(rows, t2Row{group: groupRubric, key: n, label: calib.BaselineLabel(n, b.Kind), res: &b.MethodResult,
			vsPRISM: b.DiffVsPRISM, budget: calib.Budget{CallsPerCandidate: b.CallsPerCandidate, TokensPerCandidate: b.TokensPerCandidate}, base: b})
	}
	for _, fm := range fitMethods {
		if res := r.Methods.Get(fm.m); res != nil {
			rows = append(rows, t2Row{group: groupFree, key: fm.m.String(), label: fm.label, res: res, budget: r.Budgets[fm.m.String()]})
		}
	}
	return rows
}

// countText prints a count per candidate: an integer as one, else two
// decimals; "–" when not known (0).
func countText(v float64) string {
	switch {
	case v <= 0 || math.IsNaN(v):
		return "–"
	case v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// tokensText prints tokens per candidate, rounded; "–" when not known.
func tokensText(v float64) string {
	if v <= 0 || math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// table2Header is table2.csv's header.
var table2Header = []string{"group", "method", "label", "metric", "mean", "ci_low", "ci_high",
	"diff_vs_vanilla", "diff_ci_low", "diff_ci_high", "diff_vs_prism", "diff_prism_ci_low", "diff_prism_ci_high",
	"calls_per_candidate", "tokens_per_candidate", "missing_cells", "absent"}

// table2CSV is table2.csv: a header, then a row per row of Table 2.
// Floats are in shortest round-tripping form; a cell without a value
// (Vanilla's difference, a rubric-free row's Δ vs PRISM, an unknown
// budget, a method's missing cells) is empty.
func table2CSV(r *calib.Report) [][]string {
	f := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	diff := func(d *calib.Diff) []string {
		if d == nil {
			return []string{"", "", ""}
		}
		return []string{f(d.Mean), f(d.CI[0]), f(d.CI[1])}
	}
	known := func(v float64) string {
		if v <= 0 {
			return ""
		}
		return f(v)
	}
	out := [][]string{table2Header}
	for _, row := range table2(r) {
		group := "rubric_free"
		if row.group == groupRubric {
			group = "rubric_based"
		}
		line := []string{group, row.key, row.label, r.Metric, f(row.res.Mean), f(row.res.CI[0]), f(row.res.CI[1])}
		line = append(line, diff(row.res.DiffVsVanilla)...)
		line = append(line, diff(row.vsPRISM)...)
		line = append(line, known(row.budget.CallsPerCandidate), known(row.budget.TokensPerCandidate), "", "")
		if b := row.base; b != nil {
			total := 0
			for _, n := range b.Missing {
				total += n
			}
			line[len(line)-2], line[len(line)-1] = strconv.Itoa(total), strconv.Itoa(b.Absent)
		}
		out = append(out, line)
	}
	return out
}
