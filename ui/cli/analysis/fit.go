package analysis

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/prism-eval/prism/banks"
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
	seed                                                       *uint64
	boot                                                       *int
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
	f.taylor = fs.Bool("taylor", false, "also fit the diagonal Taylor correction (reported as taylor)")
	f.global = fs.Bool("global", false, "one group for the whole dataset (data without contexts): folds split candidates, Spearman pooled over all")
	f.asJSON = fs.Bool("json", false, "print the report as JSON")
	f.judgeName = fs.String("judge", "", "workspace mode: the stored judge `NAME` whose answers are fitted (default: the only one)")
	f.dataset = fs.String("dataset", "", "workspace mode: the dataset `NAME` (default: the only one)")
	f.bankRef = fs.String("bank", "", "workspace mode: the study under this `BANK` (built-in name, TOML file or hash prefix; default: the judge's only planned study); with --scores and --save: the bank the scores came from, embedded in the calibrator")
	f.save = fs.String("save", "", "write the calibrator of the final fit to `FILE` (JSON; prism score applies it)")
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
	if a.curve, err = f.curve.options(fitUsage, *f.seed); err != nil {
		return a, err
	}
	if a.curve != nil && (*f.global || *f.confirm.protocol == protocolConfirm) {
		return a, clikit.UsageErr(fitUsage, "--curve draws subsets of contexts: not with --global or --protocol confirm")
	}
	a.opts = calib.DefaultOptions()
	a.opts.Seed, a.opts.Metric, a.opts.Bootstrap, a.opts.Global = *f.seed, *f.metric, *f.boot, *f.global
	a.opts.Taylor = *f.taylor || (*f.save != "" && method == calib.Taylor)
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
		return f.print(ctx, a, rep, d, stdout, stderr)
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
	return f.print(ctx, a, rep, d, stdout, stderr)
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

// fitInput is a judge's answers on a dataset and the dataset's human
// labels, read from a workspace; source names them for the report. bank
// and judgeSnap are their provenance, read when a calibrator is saved.
type fitInput struct {
	rows   []model.ScoreRow
	labels []model.Label
	// comparisons are the workspace dataset's comparison labels
	// (study.Data.Comparisons), nil from files.
	comparisons []model.Comparison
	dataset     string
	judge       string
	source      string
	bank        *calib.BankSnapshot
	judgeSnap   *calib.JudgeSnapshot
	// study names what was read from a workspace (zero from files);
	// metric is its dataset's own metric.
	study  model.Study
	metric string
	// rep and design are a study fit's (fitStudy).
	rep    *calib.Report
	design *calib.Design
	// rubrics are the judge's rubric ratings (fit's baselines), usage the
	// cost of its answers (fit's budgets), warnings what reading them
	// found; set by fit only.
	rubrics  []study.RubricRatings
	usage    []store.ProbeUsage
	warnings []string
}

// calibratorSource is what a saved calibrator records of its training
// data beside the fit: where the scores came from, the bank and the judge.
type calibratorSource struct {
	dataset, source string
	bank            *calib.BankSnapshot
	judge           *calib.JudgeSnapshot
}

// saveCalibrator fits the calibrator of method m on every context of d
// (calib.NewCalibrator), records its provenance and writes it to path
// through a temporary file: on any error nothing is written.
func saveCalibrator(ctx context.Context, path string, d *calib.Design, rep *calib.Report, opts calib.Options, m calib.Method, src calibratorSource, stderr io.Writer) error {
	c, err := calib.NewCalibrator(ctx, d, rep, opts, m)
	if err != nil {
		return fmt.Errorf("--save %s: %w", path, err)
	}
	c.PrismVersion = model.Version
	c.Training.Dataset, c.Training.Source, c.Training.Study = src.dataset, src.source, rep.Study
	c.Bank, c.Judge = src.bank, src.judge
	data, err := c.Marshal()
	if err != nil {
		return fmt.Errorf("--save %s: %w", path, err)
	}
	if err := model.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "saved calibrator %s (%s, γ %s, %d columns, cv mean %.4f [%.4f, %.4f] vs Vanilla %.4f; %d contexts, %d candidates)\n",
		path, c.Method, calib.GammaKey(c.Gamma.Value), len(c.Columns), c.CV.Method.Mean, c.CV.Method.CI[0], c.CV.Method.CI[1], c.CV.Vanilla.Mean,
		c.Training.Contexts, c.Training.Candidates)
	return nil
}

// bankSnapshotOf is the calibrator record of the bank ref names (a
// built-in name, a TOML file or a workspace hash prefix).
func bankSnapshotOf(ctx context.Context, ref string, fs clikit.WorkspaceFlags) (*calib.BankSnapshot, error) {
	b, _, err := clikit.ResolveBank(ctx, ref, fs)
	if err != nil {
		return nil, fmt.Errorf("--bank: %w", err)
	}
	text, err := b.Marshal()
	if err != nil {
		return nil, fmt.Errorf("--bank %s: %w", ref, err)
	}
	return &calib.BankSnapshot{Name: b.Name, Hash: b.Hash(), Source: bankSource(ref), TOML: string(text)}, nil
}

// bankSource names where a bank reference points, as prism run records
// it: a file, builtin:NAME or workspace:HASH.
func bankSource(ref string) string {
	if _, err := os.Stat(ref); err == nil {
		return ref
	}
	if _, err := banks.Builtin(ref); err == nil {
		return "builtin:" + ref
	}
	return "workspace:" + ref
}

// readFitInput reads what a fit or a selection works on: the scores and
// labels CSVs when fromFiles, else the workspace (workspaceFitInput).
func readFitInput(ctx context.Context, wf clikit.WorkspaceFlags, fromFiles bool, scores, labels string, ref studyRef, stderr io.Writer) (fitInput, error) {
	if !fromFiles {
		return workspaceFitInputWith(ctx, wf, ref, stderr, false, nil)
	}
	var in fitInput
	var err error
	if in.rows, err = clikit.ReadFile(scores, model.ReadScoresCSV); err != nil {
		return in, err
	}
	in.labels, err = clikit.ReadLabels(labels, ref.target)
	return in, err
}

// readFitInputInto reads score and label files. With a builder, each
// score row goes to the builder as it is read and only the rubric
// ratings' rows are kept in rows (what rubricRatings reads); without one,
// every row is kept. mem, when not nil, is sized from the builder's
// design as it grows.
func readFitInputInto(ctx context.Context, scores, labels, target string, b *calib.DesignBuilder, mem *fitMemLimit) (fitInput, error) {
	if b == nil {
		return readFitInput(ctx, clikit.WorkspaceFlags{}, true, scores, labels, studyRef{target: target}, nil)
	}
	var in fitInput
	// The labels first (a small file): their count sizes the builder's
	// sums once. An error in them is still reported after the scores'.
	labs, lerr := clikit.ReadLabels(labels, target)
	if lerr == nil {
		b.Reserve(len(labs))
	}
	if mem == nil {
		mem = &fitMemLimit{} // off
	}
	_, err := clikit.ReadFile(scores, func(r io.Reader, file string) (struct{}, error) {
		return struct{}{}, model.ScanScoresCSV(r, file, func(row model.ScoreRow) error {
			if strings.HasPrefix(row.Probe, "rubric:") {
				in.rows = append(in.rows, row)
			}
			err := b.Add(&row)
			mem.update(b.DesignBytes())
			return err
		})
	})
	if err != nil {
		return in, err
	}
	in.labels = labs
	return in, lerr
}

// studyRef is how a command names the study it reads: the dataset, the
// judge and the bank as given (each "" for the workspace's only one) and
// the runs to read; target, when not "", the criterion of the dataset
// the labels are read from (--target).
type studyRef struct {
	dataset, judge, bank string
	runs                 study.Runs
	target               string
}

// workspaceFitInputWith reads a judge's answers on a dataset in one study
// (study.Pick: under --bank, else the judge's only planned study there)
// and the dataset's human targets from a workspace, for fit, select and
// budget. With provenance it also reads the bank and judge configuration
// behind the answers (study.Provenance) for a saved calibrator.
//
// more, when not nil, reads more from the open store (hash: the study's
// bank).
func workspaceFitInputWith(ctx context.Context, wf clikit.WorkspaceFlags, ref studyRef, stderr io.Writer, provenance bool,
	more func(st *store.Store, in *fitInput, hash string) error) (fitInput, error) {
	var in fitInput
	st, err := clikit.OpenWorkspaceRO(ctx, *wf.Workspace)
	if err != nil {
		return in, err
	}
	defer st.Close()
	info, err := pickStudy(ctx, st, wf, ref, &in, stderr)
	if err != nil {
		return in, err
	}
	hash := info.BankHash
	d, err := study.Read(ctx, st, info, ref.runs)
	if err == nil {
		err = d.Retarget(ctx, st, ref.target)
	}
	if err == nil {
		in.rows, in.labels, in.study, in.comparisons = d.Rows, d.Labels, d.Study, d.Comparisons
	}
	if err != nil {
		return in, fmt.Errorf("%s: %w", st.Path(), err)
	}
	warnUnbalanced(stderr, wf.Name(), &in.study)
	if provenance {
		if in.bank, in.judgeSnap, err = study.Provenance(ctx, st, in.dataset, in.judge, hash, in.rows); err != nil {
			return in, fmt.Errorf("%s: %w", st.Path(), err)
		}
	}
	if more != nil {
		if err := more(st, &in, hash); err != nil {
			return in, err
		}
	}
	return in, nil
}

// rememberFit stores rep in the workspace (study.Remember) for prism ls
// and the TUI's Fit tab. A workspace that cannot be written (a read-only
// file, a busy lock) loses only that: the report is still printed, and
// a warning says why it was not kept.
func rememberFit(ctx context.Context, path string, rep *calib.Report, stderr io.Writer) {
	st, err := clikit.OpenWorkspace(ctx, path, false)
	if err == nil {
		_, err = study.Remember(ctx, st, rep)
		if cerr := st.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "prism fit: warning: the fit was not stored in %s: %v\n", path, err)
	}
}

// pickStudy resolves ref's dataset, judge and bank in the open workspace
// and picks the study to read (study.Pick), filling in's dataset, judge,
// metric and source; a note on stderr says which study was taken when
// there was a choice.
func pickStudy(ctx context.Context, st *store.Store, wf clikit.WorkspaceFlags, ref studyRef, in *fitInput, stderr io.Writer) (store.StudyInfo, error) {
	var info store.StudyInfo
	var err error
	if in.dataset, err = clikit.PickDataset(ctx, st, ref.dataset, wf.UsageDoc); err != nil {
		return info, err
	}
	if in.judge, err = pickJudge(ctx, st, ref.judge, wf.UsageDoc, stderr, wf.Name()); err != nil {
		return info, err
	}
	if in.metric, err = datasetMetric(ctx, st, in.dataset); err != nil {
		return info, err
	}
	hash := ""
	if ref.bank != "" {
		b, _, err := clikit.ResolveBank(ctx, ref.bank, wf)
		if err != nil {
			return info, err
		}
		hash = b.Hash()
	}
	info, note, err := study.Pick(ctx, st, in.dataset, in.judge, hash)
	if err != nil {
		return info, fmt.Errorf("%s: %w", st.Path(), err)
	}
	if note != "" && stderr != nil {
		fmt.Fprintf(stderr, "%s: %s\n", wf.Name(), note)
	}
	in.source = study.Source(st.Path(), info)
	return info, nil
}

// datasetMetric is the metric a dataset was imported with (pairwise for
// JudgeBench's pairs), the default of the analyses that read it.
func datasetMetric(ctx context.Context, st *store.Store, name string) (string, error) {
	ds, err := st.Datasets(ctx)
	if err != nil {
		return "", err
	}
	for _, d := range ds {
		if d.Name == name {
			return d.Metric, nil
		}
	}
	return "", nil
}

// pickJudge returns name when the workspace holds a judge of that name, or
// the only stored judge when name is empty. A name that is no stored judge
// fails naming the judges there are: those the backend of that name made
// (after a run with the old --judge offline, the names offline and
// offline-expected), else all. When name is found and other judges share
// its backend, a note on stderr names them, so the integer and the
// expected-mode judge are never confused silently.
func pickJudge(ctx context.Context, st *store.Store, name, usage string, stderr io.Writer, prog string) (string, error) {
	js, err := st.Judges(ctx)
	if err != nil {
		return "", err
	}
	all := make([]string, len(js))
	for i, j := range js {
		all[i] = j.Name
	}
	if name == "" {
		switch len(js) {
		case 1:
			return js[0].Name, nil
		case 0:
			return "", fmt.Errorf("%s holds no judge; run prism run (or prism import scores) first", st.Path())
		}
		return "", clikit.UsageErr(usage, "%s holds %d judges (%s); choose one with --judge", st.Path(), len(js), strings.Join(all, ", "))
	}
	var found *store.Judge
	for i := range js {
		if js[i].Name == name {
			found = &js[i]
		}
	}
	if found != nil {
		var siblings []string
		for _, j := range js {
			if j.Backend == found.Backend && j.Name != name && found.Backend != "import" {
				siblings = append(siblings, j.Name)
			}
		}
		if len(siblings) > 0 && stderr != nil {
			fmt.Fprintf(stderr, "%s: judge %s (backend %s, model %s); the workspace also holds %s from the same backend\n",
				prog, name, found.Backend, found.Model, strings.Join(siblings, ", "))
		}
		return name, nil
	}
	var byBackend []string
	for _, j := range js {
		if j.Backend == name {
			byBackend = append(byBackend, j.Name)
		}
	}
	switch {
	case len(byBackend) > 0:
		return "", fmt.Errorf("%s: no stored judge is named %q; judges made by backend %s: %s (pass one to --judge; prism ls lists them)",
			st.Path(), name, name, strings.Join(byBackend, ", "))
	case len(js) == 0:
		return "", fmt.Errorf("%s: judge %q: %w; the workspace holds no judge yet (prism run stores one)", st.Path(), name, store.ErrNotFound)
	}
	return "", fmt.Errorf("%s: judge %q: %w; the workspace holds %s (prism ls lists them)", st.Path(), name, store.ErrNotFound, strings.Join(all, ", "))
}

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

	fmt.Fprintln(w, "\nselected γ per outer fold (inner CV)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
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

	fmt.Fprintln(w, "\nγ sweep: out-of-fold mean at a fixed γ")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
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

	if len(r.Attributes) == 0 {
		return nil
	}
	nf := len(r.Folds)
	fmt.Fprintln(w, "\ncorrection profiles (PRISM at the selected γ, per outer training fold; positive subtracts the response)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
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
