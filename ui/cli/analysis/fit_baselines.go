package analysis

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/prism-eval/prism/calib/forest"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// baselineFlags are prism fit's flags for the rubric baselines of
// docs/protocol.md §12: which rubrics' ratings become rows, and SAJA's head.
type baselineFlags struct {
	which       *string
	head        *string
	trees       *int
	forestSeed  *uint64
	rubricFiles *string
}

func addBaselineFlags(fs *flag.FlagSet) baselineFlags {
	def := forest.DefaultOptions()
	return baselineFlags{
		which:       fs.String("baselines", "all", "rubric baselines to score beside the methods: all (every rubric with ratings), none, or `NAMES` (comma-separated, e.g. saja_broad,geval)"),
		head:        fs.String("head", calib.BaselineForest, "SAJA's fitted `HEAD`: forest (random forest, as the paper) or ridge (γ by the inner CV)"),
		trees:       fs.Int("trees", def.Trees, "trees of the forest head"),
		forestSeed:  fs.Uint64("forest-seed", def.Seed, "seed of the forest head"),
		rubricFiles: fs.String("rubric-file", "", "with --scores: rubric `FILES` (comma-separated TOML) for rubric ratings whose rubric is not built in"),
	}
}

// check validates the flags' values before anything is read.
func (bf baselineFlags) check(usage string, fromFiles bool) error {
	switch {
	case *bf.head != calib.BaselineForest && *bf.head != calib.BaselineRidge:
		return clikit.UsageErr(usage, "--head %q: want forest or ridge", *bf.head)
	case *bf.trees < 1:
		return clikit.UsageErr(usage, "--trees %d: want at least 1", *bf.trees)
	case *bf.rubricFiles != "" && !fromFiles:
		return clikit.UsageErr(usage, "--rubric-file names the rubric of ratings in a --scores file; a workspace stores its rubrics")
	}
	return nil
}

// rubricRatings reads the rubric ratings of a fit's input: from the
// workspace, its rubric studies of the judge on the dataset (plus ratings
// imported without a rubric, matched to built-ins by name); from files,
// the scores' rubric rows matched to built-ins or --rubric-file.
func (bf baselineFlags) rubricRatings(ctx context.Context, st *store.Store, in fitInput) ([]study.RubricRatings, []string, error) {
	if *bf.which == "none" {
		return nil, nil, nil
	}
	var extra []*banks.Rubric
	for _, f := range splitList(*bf.rubricFiles) {
		r, err := banks.ReadRubricFile(f)
		if err != nil {
			return nil, nil, fmt.Errorf("--rubric-file: %w", err)
		}
		extra = append(extra, r)
	}
	out, unknown, err := study.RubricRatingsOf(ctx, st, in.dataset, in.judge, in.rows, extra)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", st.Path(), err)
	}
	var warnings []string
	for _, name := range unknown {
		warnings = append(warnings, fmt.Sprintf("rubric ratings of %q: no built-in rubric of that name (give its file with --rubric-file); not scored", name))
	}
	return out, warnings, nil
}

// baselines turns the ratings into the fit's baselines, keeping those
// --baselines names.
func (bf baselineFlags) baselines(rrs []study.RubricRatings) ([]calib.Baseline, error) {
	fo := forest.DefaultOptions()
	fo.Trees, fo.Seed = *bf.trees, *bf.forestSeed
	all, err := study.Baselines(rrs, study.BaselineOptions{Head: *bf.head, Forest: fo})
	if err != nil || *bf.which == "all" || *bf.which == "none" {
		if *bf.which == "none" {
			return nil, err
		}
		return all, err
	}
	var names []string
	byName := map[string]calib.Baseline{}
	for _, b := range all {
		names = append(names, b.Name)
		byName[b.Name] = b
	}
	var out []calib.Baseline
	for _, n := range splitList(*bf.which) {
		b, ok := byName[n]
		if !ok {
			have := "none"
			if len(names) > 0 {
				have = strings.Join(names, ", ")
			}
			return nil, fmt.Errorf("--baselines: no rubric ratings named %q for this judge (have: %s)", n, have)
		}
		out = append(out, b)
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// printTable2 writes the methods and the rubric baselines grouped as the
// paper's Table 2: rubric-based rows, then rubric-free ones, each with its
// paired difference from Vanilla and from PRISM, and the calls and tokens
// per candidate its scores took.
func printTable2(w io.Writer, r *calib.Report, methods []methodLabel) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\tmean\t95% CI\tΔ vs Vanilla\t95% CI\tΔ vs PRISM\t95% CI\tcalls/cand\ttokens/cand\t")
	diff := func(d *calib.Diff) string {
		if d == nil {
			return "\t\t"
		}
		return fmt.Sprintf("%+.4f\t[%+.4f, %+.4f]\t", d.Mean, d.CI[0], d.CI[1])
	}
	budget := func(calls, tokens float64) string {
		c, t := "–", "–"
		if calls > 0 {
			c = trimFloat(calls)
		}
		if tokens > 0 {
			t = fmt.Sprintf("%.0f", tokens)
		}
		return c + "\t" + t + "\t"
	}
	fmt.Fprintln(tw, "Rubric-based\t\t\t\t\t\t\t\t\t")
	for _, name := range r.BaselineNames() {
		b := r.Baselines[name]
		fmt.Fprintf(tw, "  %s\t%.4f\t[%.4f, %.4f]\t%s%s%s\n", calib.BaselineLabel(name, b.Kind), b.Mean, b.CI[0], b.CI[1],
			diff(b.DiffVsVanilla), diff(b.DiffVsPRISM), budget(b.CallsPerCandidate, b.TokensPerCandidate))
	}
	fmt.Fprintln(tw, "Rubric-free\t\t\t\t\t\t\t\t\t")
	for _, ml := range methods {
		res := r.Methods.Get(ml.m)
		// Δ vs PRISM is a rubric row's column: Table 2 pairs each rubric
		// method with PRISM; the rubric-free rows have their Δ vs Vanilla.
		vsPRISM := "\t\t"
		bu := r.Budgets[ml.m.String()]
		fmt.Fprintf(tw, "  %s\t%.4f\t[%.4f, %.4f]\t%s%s%s\n", ml.label, res.Mean, res.CI[0], res.CI[1],
			diff(res.DiffVsVanilla), vsPRISM, budget(bu.CallsPerCandidate, bu.TokensPerCandidate))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, name := range r.BaselineNames() {
		if m := calib.MissingText(r.Baselines[name]); m != "" {
			fmt.Fprintf(w, "%s: %s\n", name, m)
		}
	}
	return nil
}

// trimFloat prints a count per candidate: an integer as one, else two
// decimals.
func trimFloat(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.2f", v)
}
