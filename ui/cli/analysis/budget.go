package analysis

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/prism-eval/prism/calib/budget"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/figures"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("budget", "budget curves: agreement per judge call for static subsets and the adaptive policy (nested CV)", runBudget)
}

const budgetUsage = `prism budget --scores S.csv --labels L.csv [flags]
       prism budget [--judge NAME] [--dataset NAME] [--bank BANK] [--workspace FILE] [flags]

For a study with every probe answered, evaluates out of fold, on the outer
folds of π with γ chosen by the same inner CV as prism fit, the agreement
each probing policy reaches against the judge calls it spends per
candidate: Vanilla and the full bank (the ends), static subsets chosen on
each fold's training contexts (the most important units or columns, one
sign per attribute, the first wording of every sign), and the adaptive
policy (docs/protocol.md §16) at each stopping threshold τ, on every
wording and on the first wording. Prints the curve with 95% context-
bootstrap intervals, the paired difference from the full bank, the
outer-fold spread, and per family the cheapest point within --tolerance of
the full bank. --svg/--png write the curve as a figure. --calibrator CAL
--save OUT learns the adaptive policy on the calibrator's training data
(these scores) with threshold --tau and writes the calibrator with it, for
prism score --budget N. --target CRITERION evaluates against one criterion
of the labels (a column of --labels, or a criterion of the dataset).`

func runBudget(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := clikit.NewWorkspaceFlags("prism budget", stderr, budgetUsage)
	def := budget.DefaultOptions()
	src := addScoreSourceFlags(fs, def.Metric)
	seed := fs.Uint64("seed", def.Seed, "seed of the default order and of the bootstrap")
	boot := fs.Int("bootstrap", def.Bootstrap, "context-bootstrap resamples `B`")
	taus := fs.String("taus", joinFloats(def.Taus), "the adaptive policy's stopping thresholds τ, comma-separated, each ≥ 0")
	tol := clikit.FiniteFloatFlag(fs.FlagSet, "tolerance", def.Tolerance, 0, 1, "a point reaches the full bank when its mean is at least the full bank's less `T`")
	svg := fs.String("svg", "", "write the curve as an SVG `FILE`")
	png := fs.String("png", "", "write the curve as a PNG `FILE`")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	calFile := fs.String("calibrator", "", "with --save: a prism calibrator `FILE` (prism fit --save) fitted on these scores, to carry the adaptive policy")
	save := fs.String("save", "", "write the calibrator with the adaptive policy learned on its training data to `FILE` (for prism score --budget)")
	tau := clikit.FiniteFloatFlag(fs.FlagSet, "tau", 0.3, 0, 1e6, "with --save: the policy's stopping threshold `τ`")
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if err := clikit.NoArgs(budgetUsage, pos); err != nil {
		return err
	}
	if err := src.check(fs, budgetUsage); err != nil {
		return err
	}
	switch {
	case *boot < 1:
		return clikit.UsageErr(budgetUsage, "--bootstrap %d: want at least 1", *boot)
	case *svg != "" && !strings.HasSuffix(strings.ToLower(*svg), ".svg"):
		return clikit.UsageErr(budgetUsage, "--svg %q: want a file name ending in .svg", *svg)
	case *png != "" && !strings.HasSuffix(strings.ToLower(*png), ".png"):
		return clikit.UsageErr(budgetUsage, "--png %q: want a file name ending in .png", *png)
	case (*calFile == "") != (*save == ""):
		return clikit.UsageErr(budgetUsage, "--calibrator and --save go together")
	}
	var cal *calib.Calibrator
	if *calFile != "" {
		if cal, err = calib.ReadCalibratorFile(*calFile); err != nil {
			return err
		}
	}
	opts := def
	if opts.Taus, err = parseTaus(*taus); err != nil {
		return clikit.UsageErr(budgetUsage, "--taus: %v", err)
	}
	opts.Seed, opts.Bootstrap, opts.Tolerance = *seed, *boot, *tol
	in, err := src.load(ctx, fs, stderr, "prism budget", "evaluating", &opts.Options)
	if err != nil {
		return err
	}
	rows, labs := in.rows, in.labels
	rep, warnings, err := budget.Evaluate(ctx, rows, labs, opts)
	for _, w := range warnings {
		fmt.Fprintln(stderr, "prism budget: warning:", w)
	}
	if err != nil {
		return err
	}
	if in.study.Dataset != "" {
		rep.Study = &in.study
	}
	if cal != nil {
		if err := savePolicy(cal, rows, labs, *tau, opts.Options, *calFile, *save, stderr); err != nil {
			return err
		}
	}
	if err := saveBudgetFigures(rep, stderr, *svg, *png); err != nil {
		return err
	}
	if *asJSON {
		return clikit.WriteJSON(stdout, rep)
	}
	var buf bytes.Buffer
	clikit.PrintStudy(&buf, rep.Study)
	printBudgetReport(&buf, rep)
	return clikit.WriteTrimmed(stdout, buf.String())
}

// savePolicy learns the adaptive policy with threshold tau on the
// calibrator's training data (these scores) and writes the calibrator
// with it to save.
func savePolicy(cal *calib.Calibrator, rows []model.ScoreRow, labs []model.Label, tau float64, opts calib.Options, calFile, save string, stderr io.Writer) error {
	if err := cal.AttachPolicy(rows, labs, tau, calib.BuildOptions{ScoresFile: opts.ScoresFile, LabelsFile: opts.LabelsFile}); err != nil {
		return fmt.Errorf("%s: %w", calFile, err)
	}
	data, err := cal.Marshal()
	if err != nil {
		return err
	}
	if err := model.WriteFileAtomic(save, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "prism budget: wrote %s: %s with the adaptive policy (τ %g, order %s)\n", save, calFile, tau, strings.Join(cal.Policy.Columns, " "))
	return nil
}

// saveBudgetFigures writes the curve to each figure file given (--svg,
// --png).
func saveBudgetFigures(rep *budget.Report, stderr io.Writer, files ...string) error {
	for _, f := range files {
		if f == "" {
			continue
		}
		if err := figures.SaveBudget(rep, f); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "prism budget: wrote %s\n", f)
	}
	return nil
}

// parseTaus reads a comma-separated list of thresholds.
func parseTaus(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v >= 0) || v > 1e300 {
			return nil, fmt.Errorf("%q: want a finite number ≥ 0", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func joinFloats(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

// printBudgetReport writes the curve and the reach table.
func printBudgetReport(w io.Writer, r *budget.Report) {
	fmt.Fprintf(w, "%d contexts, %d candidates; metric %s; %d outer folds (γ by the inner CV), %d context-bootstrap resamples, seed %d\n",
		r.NContexts, r.NCandidates, r.Metric, r.Folds, r.Bootstrap, r.Seed)
	fmt.Fprintf(w, "judge calls per candidate: baseline %.4g, full bank %.4g\n", r.BaseCalls, r.FullCalls)
	fmt.Fprintf(w, "honesty: %s\n\n", r.Note)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "policy\tcalls\tprobe share\tmean\t95% CI\tvs full\t95% CI\tfold range\t")
	for _, p := range r.Points {
		lo, hi := p.FoldMeans[0], p.FoldMeans[0]
		for _, m := range p.FoldMeans {
			lo, hi = min(lo, m), max(hi, m)
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.1f%%\t%.4f\t[%.4f, %.4f]\t%+.4f\t[%+.4f, %+.4f]\t[%.3f, %.3f]\t\n",
			p.Label(), p.Calls, 100*p.Fraction, p.Mean, p.CI[0], p.CI[1], p.VsFull, p.VsFullCI[0], p.VsFullCI[1], lo, hi)
	}
	tw.Flush()
	fmt.Fprintf(w, "\ncheapest point within %g of the full bank, per family (read off the out-of-fold curve)\n", r.Tolerance)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "family\tpoint\tprobe calls\tprobe share\tmean\t≤ half\t")
	for _, c := range r.Reach {
		if c.Point < 0 {
			fmt.Fprintf(tw, "%s\tnone\t\t\t\t\t\n", c.Family)
			continue
		}
		half := "no"
		if c.HalfOrLess {
			half = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.1f%%\t%.4f\t%s\t\n", c.Family, r.Points[c.Point].Label(), c.ProbeCalls, 100*c.Fraction, c.Mean, half)
	}
	tw.Flush()
}
