package figures

import (
	"strconv"

	"github.com/prism-eval/prism/calib"
)

// The paper's Table 2 when a report has rubric baselines (docs/protocol.md
// §12): rubric-based rows (the judge's SAJA and G-Eval ratings), then the
// rubric-free methods, each with its budget per candidate. The export
// writes it as table2.csv; the TUI's Fit tab draws the same rows.

// Table2File is the export's Table 2, written when the report has
// rubric baselines.
const Table2File = "table2.csv"

// The groups of Table 2.
const (
	GroupRubric = "Rubric-based"
	GroupFree   = "Rubric-free"
)

// MethodLabel is a rubric-free method with its label in Table 2.
type MethodLabel struct {
	M     calib.Method
	Label string
}

// Table2Methods are Table 2's rubric-free rows, in report order.
var Table2Methods = []MethodLabel{
	{calib.Vanilla, "Vanilla"},
	{calib.PRISM, "PRISM"},
	{calib.AlphaPRISM, "α-PRISM"},
	{calib.Half, "Half-diff"},
	{calib.Taylor, "Diag. Taylor"},
}

// T2Row is one row of Table 2.
type T2Row struct {
	Group string
	Key   string // the report's key: a baseline's name or a method's
	Label string
	Res   *calib.MethodResult
	// VsPRISM is a rubric row's paired difference from PRISM (nil for the
	// rubric-free rows, as in the paper).
	VsPRISM *calib.Diff
	Budget  calib.Budget          // 0: not known
	Base    *calib.BaselineResult // the rubric row's result, or nil
}

// Table2 is r's rows: the rubric-based ones (none without baselines),
// then the rubric-free methods r has, in report order.
func Table2(r *calib.Report) []T2Row {
	var rows []T2Row
	for _, n := range r.BaselineNames() {
		b := r.Baselines[n]
		rows = append(rows, T2Row{Group: GroupRubric, Key: n, Label: calib.BaselineLabel(n, b.Kind), Res: &b.MethodResult,
			VsPRISM: b.DiffVsPRISM, Budget: calib.Budget{CallsPerCandidate: b.CallsPerCandidate, TokensPerCandidate: b.TokensPerCandidate}, Base: b})
	}
	for _, fm := range Table2Methods {
		if res := r.Methods.Get(fm.M); res != nil {
			rows = append(rows, T2Row{Group: GroupFree, Key: fm.M.String(), Label: fm.Label, Res: res, Budget: r.Budgets[fm.M.String()]})
		}
	}
	return rows
}

// Table2Header is table2.csv's header.
var Table2Header = []string{"group", "method", "label", "metric", "mean", "ci_low", "ci_high",
	"diff_vs_vanilla", "diff_ci_low", "diff_ci_high", "diff_vs_prism", "diff_prism_ci_low", "diff_prism_ci_high",
	"calls_per_candidate", "tokens_per_candidate", "missing_cells", "absent"}

// Table2CSV is table2.csv: a header, then a row per row of Table 2.
// Floats are in shortest round-tripping form; a cell without a value
// (Vanilla's difference, a rubric-free row's Δ vs PRISM, an unknown
// budget, a method's missing cells) is empty.
func Table2CSV(r *calib.Report) [][]string {
	diff := func(d *calib.Diff) []string {
		if d == nil {
			return []string{"", "", ""}
		}
		return []string{ff(d.Mean), ff(d.CI[0]), ff(d.CI[1])}
	}
	known := func(v float64) string {
		if v <= 0 {
			return ""
		}
		return ff(v)
	}
	out := [][]string{Table2Header}
	for _, row := range Table2(r) {
		group := "rubric_free"
		if row.Group == GroupRubric {
			group = "rubric_based"
		}
		line := []string{group, row.Key, row.Label, r.Metric, ff(row.Res.Mean), ff(row.Res.CI[0]), ff(row.Res.CI[1])}
		line = append(line, diff(row.Res.DiffVsVanilla)...)
		line = append(line, diff(row.VsPRISM)...)
		line = append(line, known(row.Budget.CallsPerCandidate), known(row.Budget.TokensPerCandidate), "", "")
		if b := row.Base; b != nil {
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
