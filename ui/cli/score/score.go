package score

import (
	"context"
	"fmt"
	"io"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("score", "apply a calibrator (prism fit --save) to new candidates: corrected scores, ranks, transfer check", runScore)
}

const scoreUsage = `prism score --calibrator CAL.json --scores S.csv [--labels L.csv] [flags]
       prism score --calibrator CAL.json [--dataset NAME] [--workspace FILE] [--judge NAME]
             [--backend offline|openai] [--model M] [--base-url U] [--concurrency N] [--rpm N] [--tpm N]
             [--prices FILE] [--dry-run] [--max-cost USD] [--max-requests N] [--confirm-above USD] [--yes]
             [--budget N] [judge flags] [flags]
       flags: [-o FILE] [--format csv|jsonl] [--scale corrected|human] [--allow-mismatch] [--bootstrap N] [--seed N]

Applies a calibrator written by prism fit --save to candidates it has not
seen: corrected = α·baseline − Σ terms, from each candidate's baseline and
probe scores alone (docs/calibrator.md). Scores come from a CSV file
(--scores, as prism fit reads them) or from a workspace dataset: then the
calibrator's bank and judge configuration are used, only the conditions the
calibrator reads are asked (its baseline and probe columns; no neutral
clauses), the estimate is printed before anything is sent (--dry-run stops
there; --max-cost and --max-requests refuse a larger one, and above
--confirm-above on a terminal prism asks first), and the requests go through the same resumable engine as prism run
(answers already stored are not sent again; rerun the same command to
resume). Judge flags change the configuration; a configuration or bank other
than the calibrator's is refused naming each difference, unless
--allow-mismatch (the output then records them). --budget N follows the
adaptive policy of a calibrator saved by prism budget --save: the baseline
of every candidate, then one probe at a time for the candidates whose rank
may still change, at most N calls each (docs/budget.md). --judge-seed is the judge's
sampling seed (prism run's --seed); --seed seeds the transfer check's
bootstrap.

Output, one row per candidate (CSV, or JSON Lines with --format jsonl or an
-o FILE ending in .jsonl/.ndjson): context, candidate, baseline, corrected,
[human_scale,] rank_before, rank_after (within the context, 1 = highest,
ties share the mean rank), imputed (score cells filled with the training
mean), in_sample (a training candidate of the calibrator), [human,] then
each unit's contribution term. The CSV is plain (header first); its notes
(calibrator, imputed cells, mismatches) go to FILE.notes.txt beside -o FILE,
else to standard error. In within-context mode corrected scores
order candidates within a context and need not lie on the human scale;
--scale human adds the calibrator's monotone map onto it (ranks and
agreement unchanged). With labels (--labels, or the dataset's human scores)
the summary adds the transfer check: agreement of the baseline and of the
corrected scores with the humans, context-bootstrap intervals and the paired
difference; --target CRITERION checks against one criterion of the labels
(a column of --labels, or a criterion of the workspace dataset). -o writes through a temporary file: on an error nothing is
written.`

// scoreJudgeFlags are the judge flags of prism score by their name in
// judge.AddFlags: the sampling seed is --judge-seed here, since --seed seeds
// the bootstrap. keyFlags change what is sent (a request's key); the others
// are transport settings applied over the calibrator's configuration.
var keyFlags = map[string]bool{
	"judge-config": true, "backend": true, "model": true, "mode": true, "repeats": true, "temperature": true,
	"top-p": true, "max-tokens": true, "seed": true, "response-format": true,
}

func runScore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newScoreFlags(stderr)
	if help, err := f.parse(args, stdout); err != nil || help {
		return err
	}
	cal, err := f.calibrator()
	if err != nil {
		return err
	}
	// Progress and the summary go to stderr when the rows go to stdout.
	info := stderr
	if *f.out != "" {
		info = stdout
	}
	opts := f.applyOptions(cal)
	clikit.WarnTarget(stderr, cal, *f.target)
	doc := scoreDoc{file: *f.calFile, cal: cal, target: *f.target}
	var budgetDone *budgetScoring
	if f.fromFiles() {
		opts.ScoresFile, opts.LabelsFile = *f.scores, *f.labels
		if doc.res, err = scoreFiles(cal, *f.calFile, *f.scores, *f.labels, *f.target, opts); err != nil {
			return err
		}
	} else {
		ws := f.workspace(cal, opts, info, stderr, args)
		scored, mism, done, err := ws.acquire(ctx)
		if err != nil || done {
			return err
		}
		doc.res, doc.mismatches, budgetDone, doc.study = scored, mism, ws.budgetDone, ws.study
	}
	if err := f.writeRows(&doc, stdout); err != nil {
		return err
	}
	return f.printSummary(&doc, budgetDone, info)
}

// scoreFiles applies cal to the scores CSV as it is read (the rows are
// folded into their candidates, never held: calib.Applier), with the
// labels CSV when labels is not "". The calibrator's errors are prefixed
// with its file, as Apply's are.
func scoreFiles(cal *calib.Calibrator, calFile, scores, labels, target string, opts calib.ApplyOptions) (*calib.Scored, error) {
	a, err := cal.NewApplier(opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", calFile, err)
	}
	var applyErr error
	_, err = clikit.ReadFile(scores, func(r io.Reader, path string) (struct{}, error) {
		return struct{}{}, model.ScanScoresCSV(r, path, func(row model.ScoreRow) error {
			if applyErr = a.Add(&row); applyErr != nil {
				return applyErr
			}
			return nil
		})
	})
	if applyErr != nil {
		return nil, fmt.Errorf("%s: %w", calFile, applyErr)
	}
	if err != nil {
		return nil, err
	}
	var labs []model.Label
	if labels != "" {
		if labs, err = clikit.ReadLabels(labels, target); err != nil {
			return nil, err
		}
	}
	res, err := a.Finish(labs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", calFile, err)
	}
	return res, nil
}
