package analysis

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/prism-eval/prism/calib/agree"
	"github.com/prism-eval/prism/calib/curve"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("agree", "agreement of judges' scores with human labels, no probes needed (paired bootstrap)", runAgree)
}

const agreeUsage = `prism agree --scores J1.csv [--scores J2.csv …] --labels L.csv [flags]
       prism agree [--judge A,B,…] [--dataset NAME] [--bank BANK] [--workspace FILE] [flags]
       flags: [--metric M] [--skip-constant] [--scale MIN-MAX] [--bootstrap N] [--seed N] [--json]
              [--target CRITERION] [--curve [--curve-draws N] [--curve-sizes N,N,…] [--figure F.png|F.svg]]

How well do the judges agree with the human labels? For each judge:
within-context Spearman, Kendall τ-b and pairwise accuracy (averaged over
contexts, as prism fit measures them), global Pearson, Spearman and Kendall
over all candidates, and where judge and labels share a scale mean bias,
MAE, Krippendorff's α (interval, ordinal) and on integer scales
quadratic-weighted Cohen's κ; each with a context-bootstrap 95% interval on
the same draws for every judge, and the paired difference of every two
judges on the headline --metric. No probes are needed: a judge's scores
are its baseline scores, averaged over repeats.

From files: each --scores file is one judge (context,candidate,score, named
by the file's base name) or several (a judge column); a probe column keeps
its baseline rows. From a workspace: the stored judges --judge (default:
every judge with answers on the dataset), each read as its study.
Judges are measured on the candidates that have a label and every judge's
score. --curve adds the learning curve: each judge's headline metric on
--curve-draws subsets of 5, 10, 20, … contexts drawn without replacement
(seed --seed), median and 10–90% band per size, as a table (JSON: curve)
and with --figure a PNG or SVG. See docs/agree.md.`

func runAgree(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newAgreeFlags(stderr)
	co, help, err := f.parse(args, stdout)
	if err != nil || help {
		return err
	}
	in, err := f.read(ctx, stderr)
	if err != nil {
		return err
	}
	rep, err := agreeReportOf(in, f.options(in), co, *f.scale != "", f.lo, f.hi, stderr)
	if err != nil {
		return err
	}
	title := "Agreement with the labels by labelled contexts"
	if *f.target != "" {
		title += " (criterion " + *f.target + ")"
	}
	if err := f.curve.save(rep.Curve, title, "prism agree", stderr); err != nil {
		return err
	}
	rep.Target = *f.target
	for _, s := range rep.Study {
		s.Target = *f.target
	}
	if *f.asJSON {
		return clikit.WriteJSON(stdout, rep)
	}
	return printAgree(stdout, rep)
}

// agreeFlags are prism agree's flags: the judges' scores and the labels
// (files or a workspace), the headline metric, the scale and the bootstrap.
type agreeFlags struct {
	fs                               clikit.WorkspaceFlags
	def                              agree.Options
	scores                           listFlag
	labels, judges, dataset, bankRef *string
	runsFlag, metric, scale, target  *string
	skip, asJSON                     *bool
	boot                             *int
	seed                             *uint64
	curve                            curveFlags
	runs                             study.Runs // --runs, after parse
	lo, hi                           float64    // --scale, after parse
}

func newAgreeFlags(stderr io.Writer) *agreeFlags {
	fs := clikit.NewWorkspaceFlags("prism agree", stderr, agreeUsage)
	f := &agreeFlags{fs: fs, def: agree.DefaultOptions()}
	fs.Var(&f.scores, "scores", "a judge's scores `CSV`: context,candidate,score[,judge,probe,run] (repeatable: one judge per file, or a judge column)")
	f.labels = fs.String("labels", "", "human labels `CSV`: context,candidate,human")
	f.judges = fs.String("judge", "", "workspace mode: the stored judges `A,B,…` (default: every judge with answers on the dataset)")
	f.dataset = fs.String("dataset", "", "workspace mode: the dataset `NAME` (default: the only one)")
	f.bankRef = fs.String("bank", "", "workspace mode: read every judge's study under this `BANK` (default: each judge's planned study)")
	f.runsFlag = fs.String("runs", "planned", "workspace mode: the studies' `RUNS` to read: planned, all, or the first N")
	f.metric = fs.String("metric", "", "headline `METRIC` that sorts the table and is paired: "+strings.Join(agree.Headlines, ", ")+" (default: the dataset's, else spearman)")
	f.skip = fs.Bool("skip-constant", false, "leave out contexts where the judge or the labels are constant, instead of counting them 0 (G-Eval's meta-evaluation)")
	f.scale = fs.String("scale", "", "the labels' score scale `MIN-MAX`: judges scoring on it (a bank of that scale, or files' scores all on it) also get bias, MAE, α and, on integers, κ")
	f.boot = fs.Int("bootstrap", f.def.Bootstrap, "context-bootstrap resamples")
	f.seed = fs.Uint64("seed", f.def.Seed, "seed of the bootstrap")
	f.target = fs.String("target", "", "measure against one `CRITERION` of the labels instead of the overall label: a column of the --labels file, or a criterion of the workspace dataset (e.g. SummEval's coherence)")
	f.asJSON = fs.Bool("json", false, "print the report as JSON")
	f.curve = addCurveFlags(fs)
	return f
}

func (f *agreeFlags) fromFiles() bool { return len(f.scores) > 0 || *f.labels != "" }

// parse reads and checks the command line: the curve's options, and help
// true after -h.
func (f *agreeFlags) parse(args []string, stdout io.Writer) (co *curve.Options, help bool, err error) {
	pos, help, err := f.fs.ParseArgs(args, stdout)
	if err != nil || help {
		return nil, help, err
	}
	if co, err = f.curve.options(agreeUsage, *f.seed); err != nil {
		return nil, false, err
	}
	if err := clikit.NoArgs(agreeUsage, pos); err != nil {
		return nil, false, err
	}
	if err := f.check(); err != nil {
		return nil, false, err
	}
	if f.runs, err = study.ParseRuns(*f.runsFlag); err != nil {
		return nil, false, clikit.UsageErr(agreeUsage, "%v", err)
	}
	if *f.scale != "" {
		if f.lo, f.hi, err = parseScale(*f.scale); err != nil {
			return nil, false, clikit.UsageErr(agreeUsage, "--scale %q: %v", *f.scale, err)
		}
	}
	return co, false, nil
}

// check refuses a source given twice or by halves, an unknown metric, and
// a bootstrap or workspace that cannot be.
func (f *agreeFlags) check() error {
	fromFiles := f.fromFiles()
	switch {
	case fromFiles && (*f.judges != "" || *f.dataset != "" || *f.bankRef != ""):
		return clikit.UsageErr(agreeUsage, "give either --scores and --labels or --judge (a workspace), not both")
	case fromFiles && (len(f.scores) == 0 || *f.labels == ""):
		return clikit.UsageErr(agreeUsage, "--scores and --labels go together")
	}
	if *f.metric != "" {
		if err := clikit.CheckMetric(agreeUsage, *f.metric, agree.Headlines); err != nil {
			return err
		}
	}
	switch {
	case *f.boot < 1:
		return clikit.UsageErr(agreeUsage, "--bootstrap %d: want at least 1", *f.boot)
	case !fromFiles && !clikit.WorkspaceGiven(f.fs.FlagSet) && clikit.WorkspaceExists(*f.fs.Workspace) != nil:
		return clikit.UsageErr(agreeUsage, "no --scores and --labels, and no workspace at %s", *f.fs.Workspace)
	}
	return nil
}

// read reads the judges' scores and the labels, from the files or the
// workspace.
func (f *agreeFlags) read(ctx context.Context, stderr io.Writer) (agreeInput, error) {
	if f.fromFiles() {
		return readAgreeFiles(f.scores, *f.labels, *f.target)
	}
	return readAgreeWorkspace(ctx, f.fs, agreeRef{*f.dataset, *f.judges, *f.bankRef, f.runs, *f.target}, stderr)
}

// options are the agreement's options; the headline metric is --metric,
// else the dataset's (pairwise for a pairwise dataset), else Spearman's.
func (f *agreeFlags) options(in agreeInput) agree.Options {
	opts := f.def
	opts.Bootstrap, opts.Seed, opts.SkipConstant = *f.boot, *f.seed, *f.skip
	opts.Metric = *f.metric
	if opts.Metric == "" {
		opts.Metric = agree.KeySpearman
		if in.metric == model.MetricPairwise {
			opts.Metric = agree.KeyPairwise
		}
	}
	return opts
}

// agreeInput is what agree measures: the judges, the labels, the
// dataset's own metric ("" from files).
type agreeInput struct {
	judges []agreeJudge
	labels []model.Label
	metric string
}

// agreeRef names the workspace judges agree reads.
type agreeRef struct {
	dataset, judges, bank string
	runs                  study.Runs
	target                string // a criterion of the dataset ("": its target)
}

func readAgreeFiles(files []string, labels, target string) (agreeInput, error) {
	var in agreeInput
	seen := map[string]string{}
	for _, f := range files {
		js, err := readAgreeScores(f)
		if err != nil {
			return in, err
		}
		for _, j := range js {
			if prev, dup := seen[j.name]; dup {
				return in, fmt.Errorf("%s: judge %q is also in %s: give each judge one name (a judge column, or rename a file)", f, j.name, prev)
			}
			seen[j.name] = f
			in.judges = append(in.judges, j)
		}
	}
	var err error
	in.labels, err = clikit.ReadLabels(labels, target)
	return in, err
}

func readAgreeWorkspace(ctx context.Context, wf clikit.WorkspaceFlags, ref agreeRef, stderr io.Writer) (agreeInput, error) {
	var in agreeInput
	st, err := clikit.OpenWorkspaceRO(ctx, *wf.Workspace)
	if err != nil {
		return in, err
	}
	defer st.Close()
	ds, err := clikit.PickDataset(ctx, st, ref.dataset, wf.UsageDoc)
	if err != nil {
		return in, err
	}
	if in.metric, err = datasetMetric(ctx, st, ds); err != nil {
		return in, err
	}
	names := splitList(ref.judges)
	if len(names) == 0 {
		if names, err = datasetJudges(ctx, st, ds); err != nil {
			return in, err
		}
	}
	hash := ""
	if ref.bank != "" {
		b, _, err := clikit.ResolveBank(ctx, ref.bank, wf)
		if err != nil {
			return in, err
		}
		hash = b.Hash()
	}
	if in.judges, in.labels, err = workspaceAgreeJudges(ctx, st, wf, ds, names, hash, ref.runs, stderr); err != nil || ref.target == "" {
		return in, err
	}
	in.labels, err = study.CriterionLabels(ctx, st, ds, ref.target)
	return in, err
}
