package analysis

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/prism-eval/prism/calib/confirm"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// The values of prism fit --protocol.
const (
	protocolNested  = "nested"  // nested cross-validation on every context (docs/protocol.md §5)
	protocolConfirm = "confirm" // exploration/confirmation split (docs/protocol.md §13)
)

// confirmFlags are the flags of prism fit that only --protocol confirm
// reads, and the fit flags it refuses.
type confirmFlags struct {
	protocol, benchmark, pools *string
}

func addConfirmFlags(fs clikit.WorkspaceFlags) confirmFlags {
	return confirmFlags{
		protocol:  fs.String("protocol", protocolNested, "`PROTOCOL`: nested (cross-validation on every context) or confirm (fit on an exploration split, score once on the confirmation split; default metric pairwise)"),
		benchmark: fs.String("benchmark", "", "with --protocol confirm: the benchmark `NAME` the split hashes (default: the workspace dataset's name; required with --scores)"),
		pools:     fs.String("pools", strings.Join(confirm.PoolNames, ","), "with --protocol confirm: the probe `POOLS` to fit, comma-separated: "+strings.Join(confirm.PoolNames, ", ")),
	}
}

// check validates the protocol flags against the others set (set: the
// names of the flags given).
func (c confirmFlags) check(set map[string]bool, fromFiles bool) error {
	switch *c.protocol {
	case protocolNested:
		for _, name := range []string{"benchmark", "pools"} {
			if set[name] {
				return clikit.UsageErr(fitUsage, "--%s applies to --protocol confirm", name)
			}
		}
		return nil
	case protocolConfirm:
	default:
		return clikit.UsageErr(fitUsage, "--protocol %q: want %s or %s", *c.protocol, protocolNested, protocolConfirm)
	}
	for _, name := range []string{"save", "method", "global", "taylor"} {
		if set[name] {
			return clikit.UsageErr(fitUsage, "--%s does not apply to --protocol confirm", name)
		}
	}
	if fromFiles && *c.benchmark == "" {
		return clikit.UsageErr(fitUsage, "--protocol confirm with --scores and --labels needs --benchmark NAME (the split hashes it with each context id)")
	}
	if _, err := parsePools(*c.pools); err != nil {
		return clikit.UsageErr(fitUsage, "--pools: %v", err)
	}
	return nil
}

// parsePools reads the --pools list.
func parsePools(s string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !slices.Contains(confirm.PoolNames, p) {
			return nil, fmt.Errorf("pool %q: want %s", p, strings.Join(confirm.PoolNames, ", "))
		}
		if slices.Contains(out, p) {
			return nil, fmt.Errorf("pool %q given twice", p)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no pool given")
	}
	return out, nil
}

// runFitConfirm is prism fit --protocol confirm on read input: opts is the
// fit's options (metric already defaulted), dataset the workspace
// dataset's name ("" from files).
func runFitConfirm(ctx context.Context, c confirmFlags, rows []model.ScoreRow, labels []model.Label, opts calib.Options, dataset string, asJSON bool, stdout, stderr io.Writer) error {
	co := confirm.DefaultOptions()
	co.Options = opts
	if co.LabelsFile == "" { // workspace mode: errors name the workspace source
		co.LabelsFile = co.ScoresFile
	}
	co.Benchmark = *c.benchmark
	if co.Benchmark == "" {
		co.Benchmark = dataset
	}
	pools, err := parsePools(*c.pools)
	if err != nil {
		return clikit.UsageErr(fitUsage, "--pools: %v", err)
	}
	co.Pools = pools
	r, warnings, err := confirm.Confirm(ctx, rows, labels, co)
	for _, w := range warnings {
		fmt.Fprintln(stderr, "prism fit: warning:", w)
	}
	if err != nil {
		return err
	}
	if asJSON {
		return clikit.WriteJSON(stdout, r)
	}
	var buf bytes.Buffer
	printConfirmReport(&buf, r)
	return clikit.WriteTrimmed(stdout, buf.String())
}

// printConfirmReport writes the confirmation report shaped like the
// paper's Table 21: rubric-based rows, then Vanilla, PRISM per pool and
// α-PRISM (and the half-difference) per pool, each with its confirmation
// mean, interval and paired differences.
func printConfirmReport(w io.Writer, r *confirm.Report) {
	s := r.Split
	fmt.Fprintf(w, "benchmark %s: %d exploration contexts (%d candidates), %d confirmation contexts (%d candidates), %d eligible, %d evaluation pairs\n",
		r.Benchmark, len(s.Exploration), s.ExplorationCandidates, len(s.Confirmation), s.ConfirmationCandidates, len(s.Eligible), s.EvalPairs)
	fmt.Fprintf(w, "split: %s\n", r.SplitRule)
	fmt.Fprintf(w, "metric %s on confirmation; γ by %d-fold grouped CV on exploration (exact ties to the largest γ); %d paired bootstrap resamples of the eligible confirmation contexts, seed %d\n",
		r.Metric, r.Folds, r.Bootstrap, r.Seed)
	fmt.Fprintf(w, "screen on exploration (%d contexts, %d resamples): %d of %d units pass: %s\n",
		r.Screen.Contexts, r.Screen.Bootstrap, len(r.Screen.Passed), len(r.Screen.Units), orNone(r.Screen.Passed))
	if imp := imputedCells(r.Imputed, r.Columns); imp != "" {
		fmt.Fprintf(w, "imputed cells (exploration column mean): %s\n", imp)
	}
	fmt.Fprintln(w)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\tunits\tcols\tγ\tCV\tconfirm\t95% CI\tΔ vs Vanilla\t95% CI\tΔ vs primary\t95% CI\t")
	row := func(label, units, cols, gamma, cv string, sc *confirm.Score) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.4f\t[%.4f, %.4f]\t%s\t%s\t\n", label, units, cols, gamma, cv,
			sc.Mean, sc.CI[0], sc.CI[1], diffCells(sc.DiffVsVanilla), diffCells(sc.DiffVsPrimary))
	}
	if len(r.Baselines) > 0 {
		fmt.Fprintln(tw, "Rubric-based\t\t\t\t\t\t\t\t\t\t\t")
		// Table 2's order: the fitted heads (SAJA), then G-Eval.
		bs := slices.Clone(r.Baselines)
		slices.SortStableFunc(bs, func(a, b *confirm.Baseline) int {
			return cmp.Compare(boolInt(a.Kind == calib.BaselineGEval), boolInt(b.Kind == calib.BaselineGEval))
		})
		for _, b := range bs {
			gamma := ""
			if b.Kind == calib.BaselineRidge {
				gamma = calib.GammaKey(b.Gamma)
			}
			row("  "+calib.BaselineLabel(b.Name, b.Kind), "", fmt.Sprint(len(b.Criteria)), gamma, "", &b.Score)
		}
	}
	fmt.Fprintln(tw, "Rubric-free\t\t\t\t\t\t\t\t\t\t\t")
	row("  Vanilla", "", "", "", "", r.Vanilla)
	for _, m := range []struct {
		m     calib.Method
		label string
	}{{calib.PRISM, "PRISM"}, {calib.AlphaPRISM, "α-PRISM"}, {calib.Half, "Half-difference"}} {
		for _, p := range r.Pools {
			f := p.Fit(m.m)
			if f == nil {
				continue
			}
			label := "  " + m.label + ": " + p.Label
			if m.m == calib.AlphaPRISM {
				label += fmt.Sprintf(" (α %.3f)", f.Alpha)
			}
			cols := len(p.Columns)
			if m.m == calib.Half { // one half-difference column O_k per attribute
				cols = len(f.Coef)
			}
			row(label, fmt.Sprint(len(p.Units)), fmt.Sprint(cols), calib.GammaKey(f.Gamma), fmt.Sprintf("%.4f", f.CVScore), &f.Score)
		}
	}
	tw.Flush()

	var na []string
	for _, p := range r.Pools {
		if !p.Applicable {
			na = append(na, fmt.Sprintf("  %s: %s", p.Label, p.Reason))
		}
	}
	if len(na) > 0 {
		fmt.Fprintln(w, "\nnot applicable:")
		fmt.Fprintln(w, strings.Join(na, "\n"))
	}
	for _, p := range r.Pools {
		if p.Name != confirm.PoolForward || !p.Applicable {
			continue
		}
		fmt.Fprintf(w, "\nforward selection on exploration: %s (stopped: %s)\n", strings.Join(p.Units, ", "), p.ForwardStop)
	}
	if r.Primary != "" {
		fmt.Fprintln(w, "\nΔ vs primary: paired difference from PRISM on the primary pool, on the same resamples")
	}
}

// diffCells formats a paired difference and its interval as two cells.
func diffCells(d *calib.Diff) string {
	if d == nil {
		return "\t"
	}
	return fmt.Sprintf("%+.4f\t[%+.4f, %+.4f]", d.Mean, d.CI[0], d.CI[1])
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
