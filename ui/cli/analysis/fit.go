package analysis

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/curve"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("fit", "fit PRISM corrections to judge scores and human labels (nested CV, bootstrap)", func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		return pointToAgree(runFit(ctx, args, stdout, stderr), args)
	})
}

// pointToAgree adds to a fit of scores without probes the command that
// does answer them: prism agree measures the judge against the labels.
func pointToAgree(err error, args []string) error {
	if !errors.Is(err, calib.ErrNoProbes) {
		return err
	}
	how := "prism agree --judge NAME (the same workspace flags)"
	if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(strings.TrimLeft(a, "-"), "scores") }) {
		how = "prism agree --scores S.csv --labels L.csv"
	}
	return fmt.Errorf("%w\nthese scores have no probes to correct them with; how well the judge agrees with the labels is %s (docs/agree.md), and prism run --bank probes it", err, how)
}

// fitFlags are prism fit's flags.
type fitFlags struct {
	fs                                                         clikit.WorkspaceFlags
	scores, labels, order, metric, judgeName, dataset, bankRef *string
	save, methodName, attributes, runs, target, comparisons    *string
	figures                                                    *string
	seed                                                       *uint64
	boot, repeatCV                                             *int
	taylor, global, asJSON                                     *bool
	bf                                                         baselineFlags
	confirm                                                    confirmFlags
	curve                                                      curveFlags
}

func newFitFlags(stderr io.Writer) *fitFlags {
	fs := clikit.NewWorkspaceFlags("prism fit", stderr, fitUsage)
	def := calib.DefaultOptions()
	f := &fitFlags{fs: fs}
	f.scores = fs.String("scores", "", "judge scores `CSV`: context,candidate,probe,score[,run,wording]")
	f.labels = fs.String("labels", "", "human labels `CSV`: context,candidate,human")
	f.comparisons = fs.String("comparisons", "", "with --scores and --labels: human comparisons `CSV` (context,winner,loser) that the pairwise metric counts instead of the pairs of unequal labels (default metric then pairwise)")
	f.order = fs.String("order", "", "context order π, one context id per `FILE` line (default: seeded shuffle of the sorted ids)")
	f.seed = fs.Uint64("seed", def.Seed, "seed of the default order and of the bootstrap")
	f.metric = fs.String("metric", def.Metric, "metric that selects γ and heads the report: spearman or pairwise (workspace mode: default the dataset's own)")
	f.boot = fs.Int("bootstrap", def.Bootstrap, "context-bootstrap resamples")
	f.repeatCV = fs.Int("repeat-cv", 1, "run the nested CV under `K` fold permutations (seeds --seed … --seed+K−1) and report how the method means and gains vary; the headline stays the first's")
	f.taylor = fs.Bool("taylor", false, "also fit the diagonal Taylor correction (reported as taylor)")
	f.global = fs.Bool("global", false, "one group for the whole dataset (data without contexts): folds split candidates, Spearman pooled over all")
	f.asJSON = fs.Bool("json", false, "print the report as JSON")
	f.judgeName = fs.String("judge", "", "workspace mode: the stored judge `NAME` whose answers are fitted (default: the only one)")
	f.dataset = fs.String("dataset", "", "workspace mode: the dataset `NAME` (default: the only one)")
	f.bankRef = fs.String("bank", "", "workspace mode: the study under this `BANK` (built-in name, TOML file or hash prefix; default: the judge's only planned study); with --scores and --save: the bank the scores came from, embedded in the calibrator")
	f.save = fs.String("save", "", "write the calibrator of the final fit to `FILE` (JSON; prism score applies it)")
	f.figures = fs.String("figures", "", "write the report (JSON, CSV), the profile, sweep and signal figures (PNG, SVG) and Table 2 (CSV, with rubric baselines) into `DIR`, as the TUI Fit tab's e does")
	f.methodName = fs.String("method", calib.PRISM.String(), "with --save: the calibrator's `METHOD`: prism, alpha_prism, half or taylor (taylor fits with --taylor)")
	f.bf = addBaselineFlags(fs.FlagSet)
	f.attributes = fs.String("attributes", "", "fit only these `UNITS` (comma-separated attribute names and ctx:NAME context probes; e.g. prism select's choice): the report and the calibrator use their probes alone")
	f.runs = fs.String("runs", "planned", "workspace mode: the study's `RUNS` to read: planned (what prism run planned), all (diagnostics' extra runs too), or the first N")
	f.confirm = addConfirmFlags(fs)
	f.target = clikit.AddTargetFlag(fs)
	f.curve = addCurveFlags(fs)
	return f
}

// fitArgs are prism fit's checked arguments.
type fitArgs struct {
	fromFiles, metricSet bool
	method               calib.Method
	runs                 study.Runs
	opts                 calib.Options
	curve                *curve.Options // --curve (nil: none)
}

// check refuses what does not go together and returns the checked
// arguments with the fit's options.
func (f *fitFlags) check(pos []string) (a fitArgs, err error) {
	a.fromFiles = *f.scores != "" || *f.labels != ""
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	method, methodOK := calib.MethodOf(*f.methodName)
	if err := clikit.NoArgs(fitUsage, pos); err != nil {
		return a, err
	}
	switch {
	case a.fromFiles && (*f.judgeName != "" || *f.dataset != "" || (*f.bankRef != "" && *f.save == "")):
		if *f.bankRef != "" && *f.judgeName == "" && *f.dataset == "" {
			return a, clikit.UsageErr(fitUsage, "--bank with --scores and --labels names the bank embedded in a calibrator: give --save too")
		}
		return a, clikit.UsageErr(fitUsage, "give either --scores and --labels or --judge (a workspace), not both")
	case set["method"] && *f.save == "":
		return a, clikit.UsageErr(fitUsage, "--method chooses the method of the saved calibrator: give --save FILE too")
	case !methodOK:
		return a, clikit.UsageErr(fitUsage, "--method %q: want prism, alpha_prism, half or taylor", *f.methodName)
	case a.fromFiles && (*f.scores == "" || *f.labels == ""):
		return a, clikit.UsageErr(fitUsage, "--scores and --labels go together")
	case !a.fromFiles && !clikit.WorkspaceGiven(f.fs.FlagSet) && clikit.WorkspaceExists(*f.fs.Workspace) != nil:
		return a, clikit.UsageErr(fitUsage, "no --scores and --labels, and no workspace at %s", *f.fs.Workspace)
	}
	if err := f.confirm.check(set, a.fromFiles); err != nil {
		return a, err
	}
	if err := f.checkComparisons(set, a.fromFiles); err != nil {
		return a, err
	}
	if (*f.confirm.protocol == protocolConfirm || *f.comparisons != "") && !set["metric"] {
		*f.metric = model.MetricPairwise
	}
	a.metricSet, a.method = set["metric"] || *f.confirm.protocol == protocolConfirm || *f.comparisons != "", method
	if a.runs, err = study.ParseRuns(*f.runs); err != nil {
		return a, clikit.UsageErr(fitUsage, "%v", err)
	}
	if err := clikit.CheckMetric(fitUsage, *f.metric, clikit.FitMetrics); err != nil {
		return a, err
	}
	if *f.boot < 1 {
		return a, clikit.UsageErr(fitUsage, "--bootstrap %d: want at least 1", *f.boot)
	}
	if err := f.bf.check(fitUsage, a.fromFiles); err != nil {
		return a, err
	}
	if err := f.checkRepeat(); err != nil {
		return a, err
	}
	if a.curve, err = f.curve.options(fitUsage, *f.seed); err != nil {
		return a, err
	}
	if *f.figures != "" && *f.confirm.protocol == protocolConfirm {
		return a, clikit.UsageErr(fitUsage, "--figures writes a fit's report and figures: not with --protocol confirm")
	}
	if a.curve != nil && (*f.global || *f.confirm.protocol == protocolConfirm) {
		return a, clikit.UsageErr(fitUsage, "--curve draws subsets of contexts: not with --global or --protocol confirm")
	}
	a.opts = calib.DefaultOptions()
	a.opts.Seed, a.opts.Metric, a.opts.Bootstrap, a.opts.Global = *f.seed, *f.metric, *f.boot, *f.global
	a.opts.Taylor = *f.taylor || (*f.save != "" && method == calib.Taylor)
	a.opts.RepeatCV = *f.repeatCV
	a.opts.ScoresFile, a.opts.LabelsFile, a.opts.OrderFile = *f.scores, *f.labels, *f.order
	if *f.comparisons != "" {
		a.opts.ComparisonsFile = *f.comparisons
		if a.opts.Comparisons, err = clikit.ReadFile(*f.comparisons, model.ReadComparisonsCSV); err != nil {
			return a, err
		}
	}
	if *f.order != "" {
		if a.opts.Order, err = clikit.ReadFile(*f.order, calib.ReadOrder); err != nil {
			return a, err
		}
	}
	return a, nil
}

// checkComparisons refuses --comparisons where it cannot apply: without
// files (a workspace dataset keeps its own), with --metric spearman or
// --global (neither counts pairs).
func (f *fitFlags) checkComparisons(set map[string]bool, fromFiles bool) error {
	switch {
	case *f.comparisons == "":
		return nil
	case !fromFiles:
		return clikit.UsageErr(fitUsage, "--comparisons goes with --scores and --labels; a workspace dataset's comparisons (MT-Bench's) are read from it")
	case set["metric"] && *f.metric != model.MetricPairwise:
		return clikit.UsageErr(fitUsage, "--comparisons are counted by the pairwise metric: not with --metric %s", *f.metric)
	case *f.global:
		return clikit.UsageErr(fitUsage, "--comparisons are counted within contexts: not with --global")
	}
	return nil
}

func (f *fitFlags) ref(runs study.Runs) studyRef {
	return studyRef{*f.dataset, *f.judgeName, *f.bankRef, runs, *f.target}
}

func runFit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newFitFlags(stderr)
	pos, help, err := f.fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	a, err := f.check(pos)
	if err != nil {
		return err
	}
	if !a.fromFiles && *f.attributes == "" && *f.confirm.protocol != protocolConfirm {
		// A plain fit of a workspace's study: study.Fit, the call the
		// TUI's Fit tab makes.
		rep, d, err := fitStudy(ctx, f.fs, studyFit{ref: f.ref(a.runs), opts: a.opts, bf: f.bf,
			metricSet: a.metricSet, save: *f.save, method: a.method}, stderr)
		if err != nil {
			return err
		}
		return f.output(ctx, a, rep, d, stdout, stderr)
	}
	return fitRows(ctx, f, a, stdout, stderr)
}

// fitRows is prism fit of score rows: from files, or from a workspace
// under --attributes or --protocol confirm (which choose among the rows).
func fitRows(ctx context.Context, f *fitFlags, a fitArgs, stdout, stderr io.Writer) error {
	in, builder, mem, err := readFitRows(ctx, f, a, stderr)
	if mem != nil {
		defer mem.restore()
	}
	if err != nil {
		return err
	}
	opts := a.opts
	if !a.metricSet && in.metric != "" {
		opts.Metric = in.metric // the dataset's own metric (JudgeBench: pairwise)
	}
	if opts.Baselines, err = f.bf.baselines(in.rubrics); err != nil {
		return err
	}
	rows, labs := in.rows, in.labels
	if !a.fromFiles {
		opts.ScoresFile = in.source
		if opts.Metric == model.MetricPairwise {
			opts.Comparisons, opts.ComparisonsFile = in.comparisons, in.source // the dataset's own
		}
	}
	if *f.attributes != "" {
		if rows, err = calib.KeepUnits(rows, strings.Split(*f.attributes, ","), opts.ScoresFile); err != nil {
			return fmt.Errorf("--attributes: %w", err)
		}
	}
	for _, w := range in.warnings {
		fmt.Fprintln(stderr, "prism fit: warning:", w)
	}
	if *f.confirm.protocol == protocolConfirm {
		return runFitConfirm(ctx, f.confirm, rows, labs, opts, in.dataset, *f.asJSON, stdout, stderr)
	}
	var d *calib.Design
	var warnings []string
	if builder != nil {
		d, warnings, err = builder.Build(labs)
		builder, labs, in.labels = nil, nil, nil // in the design now: free them for the fit
	} else {
		d, warnings, err = calib.BuildDesign(rows, labs, calib.BuildOptions{ScoresFile: opts.ScoresFile, LabelsFile: opts.LabelsFile, Global: opts.Global,
			Comparisons: opts.Comparisons, ComparisonsFile: opts.ComparisonsFile})
	}
	var rep *calib.Report
	if err == nil {
		var w []string
		rep, w, err = calib.FitDesign(ctx, d, opts)
		warnings = append(warnings, w...)
		if err == nil && len(rep.Baselines) > 0 {
			rep.Budgets = study.MethodBudgets(in.usage, d.Columns)
		}
		if err == nil && in.study.Dataset != "" {
			rep.Study = study.Of(in.study, rep)
		}
	}
	for _, w := range warnings {
		fmt.Fprintln(stderr, "prism fit: warning:", w)
	}
	if err != nil {
		return err
	}
	if err := f.saveRows(ctx, a, in, d, rep, opts, stderr); err != nil {
		return err
	}
	if rep.Study != nil {
		rememberFit(ctx, *f.fs.Workspace, rep, stderr)
	}
	return f.output(ctx, a, rep, d, stdout, stderr)
}

// readFitRows reads what fitRows fits. A plain fit from files folds the
// score rows into its design as they are read and never holds them (the
// rubric ratings aside): a fit needs memory for its design, not for the
// file; then builder and mem are set.
func readFitRows(ctx context.Context, f *fitFlags, a fitArgs, stderr io.Writer) (in fitInput, builder *calib.DesignBuilder, mem *fitMemLimit, err error) {
	if !a.fromFiles {
		in, err = workspaceFitInputWith(ctx, f.fs, f.ref(a.runs), stderr, *f.save != "",
			func(st *store.Store, in *fitInput, hash string) (err error) {
				if in.rubrics, in.warnings, err = f.bf.rubricRatings(ctx, st, *in); err != nil || len(in.rubrics) == 0 {
					return err // budgets are reported beside rubric baselines only
				}
				in.usage, err = st.Usage(ctx, in.dataset, in.judge, hash)
				return err
			})
		return in, nil, nil, err
	}
	if *f.attributes == "" && *f.confirm.protocol != protocolConfirm {
		mem = newFitMemLimit()
		// Without --save the design is only fitted: it need not hold J̃.
		builder = calib.NewDesignBuilder(calib.BuildOptions{ScoresFile: a.opts.ScoresFile, LabelsFile: a.opts.LabelsFile, Global: a.opts.Global, DropCentered: *f.save == "",
			Comparisons: a.opts.Comparisons, ComparisonsFile: a.opts.ComparisonsFile})
	}
	if in, err = readFitInputInto(ctx, *f.scores, *f.labels, *f.target, builder, mem); err == nil {
		in.rubrics, in.warnings, err = f.bf.rubricRatings(ctx, nil, in)
	}
	return in, builder, mem, err
}

// saveRows writes the calibrator of a fitRows fit when --save asks.
func (f *fitFlags) saveRows(ctx context.Context, a fitArgs, in fitInput, d *calib.Design, rep *calib.Report, opts calib.Options, stderr io.Writer) (err error) {
	if *f.save == "" {
		return nil
	}
	src := calibratorSource{dataset: in.dataset, source: in.source, bank: in.bank, judge: in.judgeSnap}
	if a.fromFiles {
		src.source = fmt.Sprintf("scores %s, labels %s", *f.scores, *f.labels)
		if *f.target != "" {
			src.source += " (target: criterion " + *f.target + ")"
		}
		if *f.bankRef != "" {
			if src.bank, err = bankSnapshotOf(ctx, *f.bankRef, f.fs); err != nil {
				return err
			}
		}
	}
	return saveCalibrator(ctx, *f.save, d, rep, opts, a.method, src, stderr)
}

// printFit prints a fit's report: as JSON, or as the text report.
func printFit(stdout io.Writer, rep *calib.Report, asJSON bool) error {
	if asJSON {
		return clikit.WriteJSON(stdout, rep)
	}
	var buf bytes.Buffer
	if err := printFitReport(&buf, rep); err != nil {
		return err
	}
	return clikit.WriteTrimmed(stdout, buf.String())
}

const fitUsage = `prism fit --scores S.csv --labels L.csv [--comparisons C.csv] [--bank BANK --save CAL.json] [flags]
       prism fit [--judge NAME] [--dataset NAME] [--bank BANK] [--workspace FILE] [flags]
       flags: [--save CAL.json] [--method prism|alpha_prism|half|taylor] [--attributes a,b,ctx:x]
              [--baselines all|none|NAMES] [--head forest|ridge] [--trees N] [--forest-seed N] [--rubric-file FILES]
              [--target CRITERION] [--curve [--curve-draws N] [--curve-sizes N,N,…] [--figure F.png|F.svg]]
              [--repeat-cv K] [--figures DIR]
       prism fit --protocol confirm [--benchmark NAME] [--pools primary,forward,all,properties,one-sided] [input flags]

Fits Vanilla, PRISM, α-PRISM and the half-difference (and with --taylor the
diagonal Taylor correction) under nested cross-validation with
context-bootstrap intervals. Scores and labels come from CSV files or from
the workspace: the answers of the stored judge --judge (a name prism ls
lists, e.g. offline or offline-expected; default: the only one) on the
dataset (default: the only one), from every bank or one with --bank.

--save FILE also writes a calibrator: the --method (default prism) fitted
on every labelled context, with γ chosen by the same inner CV an outer fold
uses, and the bank and judge configuration behind the scores (from the
workspace; from CSV files, the bank given with --bank, and no judge).
prism score applies it to new candidates. --attributes a,b,ctx:x fits only
those units' probes (prism select's choice), so the calibrator needs only
them. --target CRITERION calibrates toward one criterion of the labels (a
column of --labels, or a criterion of the workspace dataset) instead of
the overall label; the study and the calibrator record it.

With the pairwise metric, a dataset's human comparisons (MT-Bench's
individual judgments; from files, --comparisons C.csv with columns
context,winner,loser) are what it counts: per context the share of its
comparisons the prediction orders the same way (½ for a tie), averaged
over the contexts with one; the labels stay the training target.

--curve adds the learning curve: on --curve-draws subsets of 5, 10, 20, …
contexts drawn without replacement (seed --seed), the nested CV again,
and the out-of-fold Vanilla and PRISM means and PRISM's gain, median and
10–90% band per size, as a table (JSON: curve) and with --figure a PNG or
SVG: how many labelled contexts the correction needs.

--figures DIR writes what the TUI Fit tab's e exports for the same fit:
report.json, report.csv, profiles.csv, the profiles, sweep and signal
figures as PNG and SVG, and table2.csv when the report has rubric
baselines; the paths written are listed on stderr. The signal figure is
drawn from the study's answers in the runs the fit read (--runs); a fit
of --scores files has none.

--repeat-cv K runs the whole nested CV under K fold permutations, the
k-th with seed --seed+k (the first is the fit reported), and adds each
method's out-of-fold mean over them (mean, min, max) and its gain over
Vanilla's, with how many permutations put the gain's 95% interval above
(or below) 0 (JSON: repeat_cv). Not with --order.

Rubric ratings of the judge (prism run --rubric; in a --scores file, rows
of probes rubric:NAME/CRITERION of a built-in rubric or a --rubric-file)
are scored beside the methods on the same folds and bootstrap draws, as
the paper's Table 2: SAJA with a random-forest head (--head ridge for a
ridge head), G-Eval as the mean of its criteria on [0, 1], each with its
calls and tokens per candidate. --baselines none leaves them out.

--protocol confirm splits the contexts by a hash of --benchmark (default:
the dataset's name; required with --scores) and each context id into
exploration and confirmation (docs/protocol.md §13); screens the units,
chooses γ and fits every pool on exploration only, and scores each
predictor once on confirmation with paired context-bootstrap intervals.
Its metric is pairwise unless --metric says otherwise; rubric ratings are
scored there too, their heads fitted on exploration.`
