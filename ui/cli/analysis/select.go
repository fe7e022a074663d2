package analysis

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/prism-eval/prism/calib/selection"

	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("select", "probe selection: every attribute subset, omission table, forward selection (nested CV)", runSelect)
}

const selectUsage = `prism select --scores S.csv --labels L.csv [flags]
       prism select [--judge NAME] [--dataset NAME] [--bank BANK] [--workspace FILE] [flags]

Reruns the nested cross-validation of PRISM (α = 1) on the same folds for
every non-empty subset of the bank's units (attributes keep both columns;
each context probe is a unit of one column), and prints the median gain over
Vanilla per subset size with the 10th–90th percentiles across subsets, the
omission table (the full bank without each unit) and forward selection (add
the unit with the largest nested-CV mean; stop below --min-gain or at
--max-forward units). Banks of more than 16 units are not enumerated; use
--subsets=false for the omission table and forward selection alone.
Scores come from CSV files (as for prism fit) or from the workspace: the
stored judge's answers on the dataset, from one bank snapshot with --bank;
--judge and --dataset may be left out when the workspace holds one.
--target CRITERION selects toward one criterion of the labels (a column
of --labels, or a criterion of the workspace dataset).`

func runSelect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := clikit.NewWorkspaceFlags("prism select", stderr, selectUsage)
	def := selection.DefaultOptions()
	src := addScoreSourceFlags(fs, def.Metric)
	seed := fs.Uint64("seed", def.Seed, "seed of the default order")
	subsets := fs.Bool("subsets", true, "enumerate every non-empty subset of units (at most 16 units)")
	fwd := fs.Bool("forward", true, "run forward selection")
	maxFwd := fs.Int("max-forward", def.MaxForward, "forward selection stops at `N` units")
	// A gain is a difference of two metric values, each within [-1, 1].
	minGain := clikit.FiniteFloatFlag(fs.FlagSet, "min-gain", def.MinGain, -2, 2, "forward selection stops when the best addition gains less than `G` (within [-2, 2])")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if err := clikit.NoArgs(selectUsage, pos); err != nil {
		return err
	}
	if err := src.check(fs, selectUsage); err != nil {
		return err
	}
	if *maxFwd < 1 {
		return clikit.UsageErr(selectUsage, "--max-forward %d: want at least 1", *maxFwd)
	}
	opts := def
	opts.Seed, opts.Subsets, opts.Forward, opts.MaxForward, opts.MinGain = *seed, *subsets, *fwd, *maxFwd, *minGain
	in, err := src.load(ctx, fs, stderr, "prism select", "selecting on", &opts.Options)
	if err != nil {
		return err
	}
	rows, labs := in.rows, in.labels
	progress := newSubsetProgress(stderr)
	opts.Progress = progress.update
	rep, warnings, err := selection.Select(ctx, rows, labs, opts)
	progress.done()
	for _, w := range warnings {
		fmt.Fprintln(stderr, "prism select: warning:", w)
	}
	if err != nil {
		return err
	}
	if in.study.Dataset != "" {
		rep.Study = &in.study
	}
	if *asJSON {
		return clikit.WriteJSON(stdout, rep)
	}
	var buf bytes.Buffer
	clikit.PrintStudy(&buf, rep.Study)
	printSelectReport(&buf, rep, opts)
	return clikit.WriteTrimmed(stdout, buf.String())
}

// subsetProgress prints "subsets done/total" to stderr about once a
// second while a long enumeration runs, and nothing for a quick one.
type subsetProgress struct {
	w       io.Writer
	mu      sync.Mutex
	start   time.Time
	last    time.Time
	printed bool
}

func newSubsetProgress(w io.Writer) *subsetProgress {
	now := time.Now()
	return &subsetProgress{w: w, start: now, last: now}
}

func (p *subsetProgress) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.last) < time.Second || done == total {
		return
	}
	p.last = now
	p.printed = true
	fmt.Fprintf(p.w, "prism select: %d/%d subsets (%.0f%%, %s)\n", done, total, 100*float64(done)/float64(total), now.Sub(p.start).Round(time.Second))
}

func (p *subsetProgress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.printed {
		fmt.Fprintf(p.w, "prism select: subsets done in %s\n", time.Since(p.start).Round(100*time.Millisecond))
	}
}

// printSelectReport writes the human-readable selection report: the
// subset-size curve (Fig. 4c), the omission table (Table 19) and the
// forward path (Table 21).
func printSelectReport(w io.Writer, r *selection.Report, opts selection.Options) {
	fmt.Fprintf(w, "%d contexts, %d candidates, %d units; metric %s; PRISM with nested CV (%d outer × %d inner folds, %d γ), same folds for every subset\n",
		r.NContexts, r.NCandidates, len(r.Units), r.Metric, opts.Folds, opts.Folds, len(opts.Gammas))
	fmt.Fprintf(w, "Vanilla %.4f; full bank %.4f (gain %+.4f)\n", r.Vanilla, r.Full.Mean, r.Full.Gain)

	if len(r.Curve) > 0 {
		fmt.Fprintln(w, "\nsubset-size curve: gain over Vanilla across all subsets of each size (band: 10th–90th percentile across subsets, not a CI)")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "size\tsubsets\tmedian gain\tp10\tp90\tabove Vanilla\t")
		for _, c := range r.Curve {
			fmt.Fprintf(tw, "%d\t%d\t%+.4f\t%+.4f\t%+.4f\t%d/%d\t\n", c.Size, c.Subsets, c.Median, c.P10, c.P90, c.AboveVanilla, c.Subsets)
		}
		tw.Flush()
	}

	fmt.Fprintln(w, "\nomission: the full bank without one unit")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "without\tmean\tgain\tchange vs full\t")
	for _, o := range r.Omission {
		fmt.Fprintf(tw, "%s\t%.4f\t%+.4f\t%+.4f\t\n", o.Unit, o.Mean, o.Gain, o.Change)
	}
	tw.Flush()
	if len(r.Omission) > 0 {
		fmt.Fprintf(w, "range after one omission: [%.4f, %.4f] (full bank %.4f)\n", r.OmissionRange[0], r.OmissionRange[1], r.Full.Mean)
	}

	if r.ForwardStop != "" {
		fmt.Fprintf(w, "\nforward selection (stop below %+.4f or at %d units)\n", opts.MinGain, opts.MaxForward)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "step\tadded\tmean\tgain\timprovement\t")
		for i, f := range r.Forward {
			fmt.Fprintf(tw, "%d\t%s\t%.4f\t%+.4f\t%+.4f\t\n", i+1, f.Added, f.Mean, f.Gain, f.Improvement)
		}
		tw.Flush()
		fmt.Fprintf(w, "stopped: %s\n", r.ForwardStop)
	}
}
