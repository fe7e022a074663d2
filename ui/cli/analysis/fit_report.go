package analysis

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

type methodLabel struct {
	m     calib.Method
	label string
}

var methodLabels = []methodLabel{
	{calib.Vanilla, "Vanilla"},
	{calib.PRISM, "PRISM"},
	{calib.AlphaPRISM, "α-PRISM"},
	{calib.Half, "Half-difference"},
	{calib.Taylor, "Diagonal Taylor"},
}

// printFitReport writes the human-readable report: a Table 2-style
// comparison, the selected γ per fold, the sweep and a Table 20-style
// profile table.
func printFitReport(w io.Writer, r *calib.Report) error {
	var methods []methodLabel
	for _, ml := range methodLabels {
		if r.Methods.Get(ml.m) != nil {
			methods = append(methods, ml)
		}
	}
	fitted := methods[1:]
	printFitHead(w, r)
	if err := printMethods(w, r, methods); err != nil {
		return err
	}
	printRepeatCV(w, r, methods)
	printFoldGammas(w, r, fitted)
	printGammaSweep(w, r, fitted)
	return printProfiles(w, r)
}

// printFitHead prints the study, the data's size and the options.
func printFitHead(w io.Writer, r *calib.Report) {
	clikit.PrintStudy(w, r.Study)
	if r.Global {
		fmt.Fprintf(w, "global mode: %d candidates as one group, %d columns; Spearman pooled over all candidates; %d bootstrap resamples, seed %d\n",
			r.NCandidates, len(r.Columns), r.Bootstrap, r.Seed)
	} else {
		metric := r.Metric
		if r.Comparisons > 0 {
			metric += fmt.Sprintf(" on %d human comparisons", r.Comparisons)
		}
		fmt.Fprintf(w, "%d contexts, %d candidates, %d columns; metric %s; %d bootstrap resamples, seed %d\n",
			r.NContexts, r.NCandidates, len(r.Columns), metric, r.Bootstrap, r.Seed)
	}
	if imp := imputedCells(r.Imputed, r.Columns); imp != "" {
		fmt.Fprintf(w, "imputed cells (column mean): %s\n", imp)
	}
}

// printMethods prints each method's mean and difference from Vanilla, as
// Table 2 when baselines were fitted.
func printMethods(w io.Writer, r *calib.Report, methods []methodLabel) error {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(r.Baselines) > 0 {
		if err := printTable2(w, r, methods); err != nil {
			return err
		}
		methods = methods[:0]
	} else {
		fmt.Fprintln(tw, "method\tmean\t95% CI\tΔ vs Vanilla\t95% CI\t")
	}
	for _, ml := range methods {
		res := r.Methods.Get(ml.m)
		fmt.Fprintf(tw, "%s\t%.4f\t[%.4f, %.4f]\t", ml.label, res.Mean, res.CI[0], res.CI[1])
		if d := res.DiffVsVanilla; d != nil {
			fmt.Fprintf(tw, "%+.4f\t[%+.4f, %+.4f]\t", d.Mean, d.CI[0], d.CI[1])
		} else {
			fmt.Fprint(tw, "\t\t")
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	return nil
}

// printFoldGammas prints the γ the inner CV selected per outer fold.
func printFoldGammas(w io.Writer, r *calib.Report, fitted []methodLabel) {
	fmt.Fprintln(w, "\nselected γ per outer fold (inner CV)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "method\t")
	for _, f := range r.Folds {
		fmt.Fprintf(tw, "fold %d\t", f.Fold)
	}
	fmt.Fprintln(tw)
	for _, ml := range fitted {
		fmt.Fprintf(tw, "%s\t", ml.label)
		for _, f := range r.Folds {
			ff := foldFit(&f, ml.m)
			if ml.m == calib.AlphaPRISM {
				fmt.Fprintf(tw, "%g (α %.3f)\t", ff.Gamma, ff.Alpha)
			} else {
				fmt.Fprintf(tw, "%g\t", ff.Gamma)
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// printGammaSweep prints the out-of-fold mean at each fixed γ of the grid.
func printGammaSweep(w io.Writer, r *calib.Report, fitted []methodLabel) {
	fmt.Fprintln(w, "\nγ sweep: out-of-fold mean at a fixed γ")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "γ\t")
	for _, ml := range fitted {
		fmt.Fprintf(tw, "%s\t", ml.label)
	}
	fmt.Fprintln(tw)
	for _, g := range r.GammaGrid {
		key := calib.GammaKey(g)
		fmt.Fprintf(tw, "%s\t", key)
		for _, ml := range fitted {
			fmt.Fprintf(tw, "%.4f\t", r.Sweep[key][ml.m.String()])
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprint(tw, "selected\t")
	for _, ml := range fitted {
		fmt.Fprintf(tw, "%.4f\t", r.Methods.Get(ml.m).Mean)
	}
	fmt.Fprintln(tw)
	tw.Flush()
}

// printProfiles prints PRISM's correction profiles per attribute.
func printProfiles(w io.Writer, r *calib.Report) error {
	if len(r.Attributes) == 0 {
		return nil
	}
	nf := len(r.Folds)
	fmt.Fprintln(w, "\ncorrection profiles (PRISM at the selected γ, per outer training fold; positive subtracts the response)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "attribute\ta mean\t[min, max]\tsign-stable\te mean\t[min, max]\tsign-stable\t")
	for _, a := range r.Attributes {
		p := r.Profiles[a]
		fmt.Fprintf(tw, "%s\t%+.3f\t[%+.3f, %+.3f]\t%d/%d\t%+.3f\t[%+.3f, %+.3f]\t%d/%d\t\n", a,
			p.A.Mean, p.A.Min, p.A.Max, p.A.SignStable, nf,
			p.E.Mean, p.E.Min, p.E.Max, p.E.SignStable, nf)
	}
	return tw.Flush()
}

// imputedCells lists the score columns (baseline, then columns) with
// mean-imputed cells, "COLUMN N, …", or "" when none were.
func imputedCells(imputed map[string]int, columns []string) string {
	var out []string
	for _, c := range append([]string{"baseline"}, columns...) {
		if n := imputed[c]; n > 0 {
			out = append(out, fmt.Sprintf("%s %d", c, n))
		}
	}
	return strings.Join(out, ", ")
}

func foldFit(f *calib.Fold, m calib.Method) calib.FoldFit {
	switch m {
	case calib.AlphaPRISM:
		return f.AlphaPRISM
	case calib.Half:
		return f.Half
	case calib.Taylor:
		if f.Taylor != nil {
			return *f.Taylor
		}
		return calib.FoldFit{}
	}
	return f.PRISM
}
