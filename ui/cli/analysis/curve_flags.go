package analysis

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/curve"
	"github.com/prism-eval/prism/calib/figures"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// curveFlags are the learning-curve flags of prism agree and prism fit
// (docs/agree.md "Learning curve").
type curveFlags struct {
	on            *bool
	draws         *int
	sizes, figure *string
}

func addCurveFlags(fs clikit.WorkspaceFlags) curveFlags {
	def := curve.DefaultOptions()
	return curveFlags{
		on:     fs.Bool("curve", false, "also the learning curve: the agreement as a function of the number of labelled contexts (subsets drawn at each size; median and 10–90% band)"),
		draws:  fs.Int("curve-draws", def.Draws, "with --curve: subsets drawn at each size"),
		sizes:  fs.String("curve-sizes", "", "with --curve: the numbers of contexts `N,N,…` (default 5,10,20,… doubling, then all)"),
		figure: fs.String("figure", "", "with --curve: write the curve as a figure `FILE` (.png or .svg)"),
	}
}

// options checks the flags and returns the curve's options (seed: the
// command's), or nil without --curve.
func (c curveFlags) options(usage string, seed uint64) (*curve.Options, error) {
	if !*c.on {
		if *c.figure != "" || *c.sizes != "" {
			return nil, clikit.UsageErr(usage, "--figure and --curve-sizes go with --curve")
		}
		return nil, nil
	}
	if *c.draws < 1 {
		return nil, clikit.UsageErr(usage, "--curve-draws %d: want at least 1", *c.draws)
	}
	if f := strings.ToLower(*c.figure); f != "" && !strings.HasSuffix(f, ".png") && !strings.HasSuffix(f, ".svg") {
		return nil, clikit.UsageErr(usage, "--figure %q: want a file name ending in .png or .svg", *c.figure)
	}
	o := curve.Options{Draws: *c.draws, Seed: seed}
	for _, s := range splitList(*c.sizes) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, clikit.UsageErr(usage, "--curve-sizes: %q is not a number of contexts ≥ 1", s)
		}
		o.Sizes = append(o.Sizes, n)
	}
	return &o, nil
}

// save writes the figure when --figure asks, saying so on stderr.
func (c curveFlags) save(cur *curve.Curve, title, prog string, stderr io.Writer) error {
	if *c.figure == "" || cur == nil {
		return nil
	}
	if err := figures.SaveCurve(cur, title, *c.figure); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s: wrote %s\n", prog, *c.figure)
	return nil
}

// printCurve writes the curve as a table: one row per size, one column
// per series, each the median with its 10–90% band.
func printCurve(w io.Writer, c *curve.Curve) {
	fmt.Fprintf(w, "\nlearning curve: %s; %d subsets of contexts drawn at each size without replacement, seed %d; median [10%%, 90%%] across draws (a spread, not a CI)\n",
		c.What, c.Draws, c.Seed)
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "contexts\tdraws\t%s\t\n", strings.Join(c.Series, "\t"))
	for _, p := range c.Points {
		cells := []string{strconv.Itoa(p.Contexts), strconv.Itoa(p.Draws)}
		for _, s := range c.Series {
			b, ok := p.Series[s]
			switch {
			case !ok:
				cells = append(cells, "—")
			case p.Draws == 1:
				cells = append(cells, fmt.Sprintf("%+.3f", b.Median))
			default:
				cells = append(cells, fmt.Sprintf("%+.3f [%+.3f, %+.3f]", b.Median, b.P10, b.P90))
			}
		}
		fmt.Fprintf(tw, "%s\t\n", strings.Join(cells, "\t"))
	}
	tw.Flush()
	w.Write(buf.Bytes())
}

// print prints a fit's report and, with --curve, its learning curve
// (curve.Fit on the fit's design, metric and seed): the table after the
// report, or the JSON report with a curve key; --figure draws it.
func (f *fitFlags) print(ctx context.Context, a fitArgs, rep *calib.Report, d *calib.Design, stdout, stderr io.Writer) error {
	if a.curve == nil {
		return printFit(stdout, rep, *f.asJSON)
	}
	opts := a.opts
	opts.Metric = rep.Metric
	cur, err := curve.Fit(ctx, d, opts, *a.curve)
	if err != nil {
		return fmt.Errorf("--curve: %w", err)
	}
	title := "Out-of-fold agreement by labelled contexts"
	if rep.Study != nil && rep.Study.Target != "" {
		title += " (criterion " + rep.Study.Target + ")"
	} else if *f.target != "" {
		title += " (criterion " + *f.target + ")"
	}
	if err := f.curve.save(cur, title, "prism fit", stderr); err != nil {
		return err
	}
	if *f.asJSON {
		return clikit.WriteJSON(stdout, struct {
			*calib.Report
			Curve *curve.Curve `json:"curve"`
		}{rep, cur})
	}
	var buf bytes.Buffer
	if err := printFitReport(&buf, rep); err != nil {
		return err
	}
	printCurve(&buf, cur)
	return clikit.WriteTrimmed(stdout, buf.String())
}
