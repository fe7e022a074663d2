package analysis

import (
	"context"
	"fmt"
	"io"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// scoreSourceFlags are the flags naming where a command's judge scores
// and human labels come from: two CSV files (--scores, --labels) or the
// workspace (--judge, --dataset, --bank). select and budget share them;
// fit has its own, since --bank there also names a saved calibrator's bank.
type scoreSourceFlags struct {
	scores, labels, judge, dataset, bank, runs *string
	target                                     *string
	order, metric                              *string
}

// addScoreSourceFlags defines the source flags on fs, with the context
// order and the metric (default defMetric) that select and budget read the
// same way.
func addScoreSourceFlags(fs clikit.WorkspaceFlags, defMetric string) scoreSourceFlags {
	return scoreSourceFlags{
		order:   fs.String("order", "", "context order π, one context id per `FILE` line (default: seeded shuffle of the sorted ids)"),
		metric:  fs.String("metric", defMetric, "metric: spearman or pairwise"),
		scores:  fs.String("scores", "", "judge scores `CSV`: context,candidate,probe,score[,run,wording]"),
		labels:  fs.String("labels", "", "human labels `CSV`: context,candidate,human"),
		judge:   fs.String("judge", "", "the stored judge `NAME` whose answers in the workspace are used (default: the only one)"),
		dataset: fs.String("dataset", "", "dataset `NAME` in the workspace (default: the only one)"),
		bank:    fs.String("bank", "", "the study under this `BANK` (built-in name, TOML file or workspace hash; default: the judge's only planned study)"),
		runs:    fs.String("runs", "planned", "the study's `RUNS` to read: planned (what prism run planned), all, or the first N"),
		target:  clikit.AddTargetFlag(fs),
	}
}

// fromFiles reports whether the scores come from CSV files.
func (s scoreSourceFlags) fromFiles() bool { return *s.scores != "" || *s.labels != "" }

// check returns the usage error of a source given by halves, by both
// kinds at once, or by neither with no workspace, or of a --metric
// prism fit does not select γ by; nil otherwise.
func (s scoreSourceFlags) check(fs clikit.WorkspaceFlags, usage string) error {
	fromFiles := s.fromFiles()
	switch {
	case fromFiles && (*s.scores == "" || *s.labels == ""):
		return clikit.UsageErr(usage, "--scores and --labels go together")
	case fromFiles && (*s.judge != "" || *s.dataset != "" || *s.bank != ""):
		return clikit.UsageErr(usage, "give either --scores/--labels or --judge [--dataset] [--bank], not both")
	case !fromFiles && !clikit.WorkspaceGiven(fs.FlagSet) && clikit.WorkspaceExists(*fs.Workspace) != nil:
		return clikit.UsageErr(usage, "no --scores and --labels, and no workspace at %s", *fs.Workspace)
	}
	return clikit.CheckMetric(usage, *s.metric, clikit.FitMetrics)
}

// load reads the source (read) and the --order file into opts: where the
// rows came from, the metric (from the workspace, the dataset's own unless
// --metric was given), the dataset's comparisons and the order.
func (s scoreSourceFlags) load(ctx context.Context, fs clikit.WorkspaceFlags, stderr io.Writer, command, verb string, opts *calib.Options) (fitInput, error) {
	opts.Metric = *s.metric
	opts.ScoresFile, opts.LabelsFile, opts.OrderFile = *s.scores, *s.labels, *s.order
	in, err := s.read(ctx, fs, stderr, command, verb)
	if err != nil {
		return in, err
	}
	if !s.fromFiles() {
		opts.ScoresFile, opts.LabelsFile = in.source, in.source
		if !clikit.FlagGiven(fs.FlagSet, "metric") && in.metric != "" {
			opts.Metric = in.metric // the dataset's own metric (JudgeBench: pairwise)
		}
		opts.Comparisons, opts.ComparisonsFile = in.comparisons, in.source // MT-Bench's: the pairwise metric counts them
	}
	if *s.order != "" {
		if opts.Order, err = clikit.ReadFile(*s.order, calib.ReadOrder); err != nil {
			return in, err
		}
	}
	return in, nil
}

// read reads the scores and labels. From the workspace, in.source names
// both, and the labels are cut to the candidates the judge answered (a
// screen or an unfinished run scores only part of the dataset), with a
// warning on stderr naming the command and what it does with the rest
// ("selecting on", "evaluating").
func (s scoreSourceFlags) read(ctx context.Context, fs clikit.WorkspaceFlags, stderr io.Writer, command, verb string) (fitInput, error) {
	fromFiles := s.fromFiles()
	runs, err := study.ParseRuns(*s.runs)
	if err != nil {
		return fitInput{}, clikit.UsageErr(fs.UsageDoc, "%v", err)
	}
	in, err := readFitInput(ctx, fs, fromFiles, *s.scores, *s.labels, studyRef{*s.dataset, *s.judge, *s.bank, runs, *s.target}, stderr)
	if err != nil || fromFiles {
		return in, err
	}
	var dropped int
	if in.labels, dropped = model.ScoredLabels(in.rows, in.labels); dropped > 0 {
		fmt.Fprintf(stderr, "%s: warning: %d labelled candidates of the dataset have no answers from judge %q; %s the %d that do\n", command, dropped, in.judge, verb, len(in.labels))
	}
	return in, nil
}
