package analysis

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/prism-eval/prism/calib/agree"
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
	fs := clikit.NewWorkspaceFlags("prism agree", stderr, agreeUsage)
	def := agree.DefaultOptions()
	var scores listFlag
	fs.Var(&scores, "scores", "a judge's scores `CSV`: context,candidate,score[,judge,probe,run] (repeatable: one judge per file, or a judge column)")
	labels := fs.String("labels", "", "human labels `CSV`: context,candidate,human")
	judges := fs.String("judge", "", "workspace mode: the stored judges `A,B,…` (default: every judge with answers on the dataset)")
	dataset := fs.String("dataset", "", "workspace mode: the dataset `NAME` (default: the only one)")
	bankRef := fs.String("bank", "", "workspace mode: read every judge's study under this `BANK` (default: each judge's planned study)")
	runsFlag := fs.String("runs", "planned", "workspace mode: the studies' `RUNS` to read: planned, all, or the first N")
	metric := fs.String("metric", "", "headline `METRIC` that sorts the table and is paired: "+strings.Join(agree.Headlines, ", ")+" (default: the dataset's, else spearman)")
	skip := fs.Bool("skip-constant", false, "leave out contexts where the judge or the labels are constant, instead of counting them 0 (G-Eval's meta-evaluation)")
	scale := fs.String("scale", "", "the labels' score scale `MIN-MAX`: judges scoring on it (a bank of that scale, or files' scores all on it) also get bias, MAE, α and, on integers, κ")
	boot := fs.Int("bootstrap", def.Bootstrap, "context-bootstrap resamples")
	seed := fs.Uint64("seed", def.Seed, "seed of the bootstrap")
	target := fs.String("target", "", "measure against one `CRITERION` of the labels instead of the overall label: a column of the --labels file, or a criterion of the workspace dataset (e.g. SummEval's coherence)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	cf := addCurveFlags(fs)
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	co, err := cf.options(agreeUsage, *seed)
	if err != nil {
		return err
	}
	fromFiles := len(scores) > 0 || *labels != ""
	if err := clikit.NoArgs(agreeUsage, pos); err != nil {
		return err
	}
	switch {
	case fromFiles && (*judges != "" || *dataset != "" || *bankRef != ""):
		return clikit.UsageErr(agreeUsage, "give either --scores and --labels or --judge (a workspace), not both")
	case fromFiles && (len(scores) == 0 || *labels == ""):
		return clikit.UsageErr(agreeUsage, "--scores and --labels go together")
	}
	if *metric != "" {
		if err := clikit.CheckMetric(agreeUsage, *metric, agree.Headlines); err != nil {
			return err
		}
	}
	switch {
	case *boot < 1:
		return clikit.UsageErr(agreeUsage, "--bootstrap %d: want at least 1", *boot)
	case !fromFiles && !clikit.WorkspaceGiven(fs.FlagSet) && clikit.WorkspaceExists(*fs.Workspace) != nil:
		return clikit.UsageErr(agreeUsage, "no --scores and --labels, and no workspace at %s", *fs.Workspace)
	}
	runs, err := study.ParseRuns(*runsFlag)
	if err != nil {
		return clikit.UsageErr(agreeUsage, "%v", err)
	}
	var lo, hi float64
	if *scale != "" {
		if lo, hi, err = parseScale(*scale); err != nil {
			return clikit.UsageErr(agreeUsage, "--scale %q: %v", *scale, err)
		}
	}
	var in agreeInput
	if fromFiles {
		in, err = readAgreeFiles(scores, *labels, *target)
	} else {
		in, err = readAgreeWorkspace(ctx, fs, agreeRef{*dataset, *judges, *bankRef, runs, *target}, stderr)
	}
	if err != nil {
		return err
	}
	opts := def
	opts.Bootstrap, opts.Seed, opts.SkipConstant = *boot, *seed, *skip
	opts.Metric = *metric
	if opts.Metric == "" {
		opts.Metric = agree.KeySpearman
		if in.metric == model.MetricPairwise {
			opts.Metric = agree.KeyPairwise
		}
	}
	rep, err := agreeReportOf(in, opts, co, *scale != "", lo, hi, stderr)
	if err != nil {
		return err
	}
	title := "Agreement with the labels by labelled contexts"
	if *target != "" {
		title += " (criterion " + *target + ")"
	}
	if err := cf.save(rep.Curve, title, "prism agree", stderr); err != nil {
		return err
	}
	rep.Target = *target
	for _, s := range rep.Study {
		s.Target = *target
	}
	if *asJSON {
		return clikit.WriteJSON(stdout, rep)
	}
	return printAgree(stdout, rep)
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
