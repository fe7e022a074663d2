package data

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// importLogs imports other tools' logs (--format): it reads them whole,
// then stores their scores on the dataset named, or on the one named
// after the task or file, creating it from the logs when absent.
func importLogs(ctx context.Context, fs importFlags, files []string, stdout io.Writer) error {
	format := *fs.format
	if !slices.Contains(datasets.LogFormats(), format) {
		return clikit.UsageErr(importUsage, "--format %s: want one of %s", model.Quote(format), strings.Join(datasets.LogFormats(), ", "))
	}
	if len(files) == 0 {
		return clikit.UsageErr(importUsage, "want one or more FILEs")
	}
	if slices.Contains(files, "-") {
		return clikit.UsageErr(importUsage, "--format %s reads files, not standard input", format)
	}
	opts := datasets.LogOptions{Context: *fs.context, Candidate: *fs.candidate, Score: *fs.score,
		Run: *fs.run, Label: *fs.label, Scorer: *fs.scorer, ParseReply: parseReply}
	if err := checkLogFlags(fs, format); err != nil {
		return err
	}
	log, err := datasets.LoadScoreLogs(format, files, opts)
	if err != nil {
		return err
	}
	where := strings.Join(files, ", ")
	if *fs.labels != "" {
		if err := applyLabelsFile(log.Dataset, *fs.labels); err != nil {
			return err
		}
	}
	s, err := clikit.OpenWorkspace(ctx, *fs.Workspace, true)
	if err != nil {
		return err
	}
	defer s.Close()
	if *fs.dataset != "" {
		log.Dataset.Name = *fs.dataset
	}
	ds := log.Dataset.Name
	created, err := ensureLogDataset(ctx, s, log, where, *fs.labels != "")
	if err != nil {
		return err
	}
	if *fs.bank != "" {
		err = checkBankScale(ctx, s, *fs.bank, fs.WorkspaceFlags, ds, where, log.Rows)
	}
	var n int
	if err == nil {
		n, err = s.ImportScores(ctx, ds, *fs.judge, log.Rows)
	}
	if err != nil {
		if created { // a failed import leaves no dataset behind either
			_ = s.DeleteDataset(ctx, ds)
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	if created {
		fmt.Fprintf(stdout, "created dataset %s: %d contexts, %d candidates, %d labels (from %s)\n",
			ds, len(log.Dataset.Contexts), log.Dataset.NumCandidates(), len(log.Labels()), format)
	}
	fmt.Fprintf(stdout, "imported %d scores from %s as judge %s on %s into %s\n", n, where, *fs.judge, ds, s.Path())
	return s.Close()
}

// checkLogFlags refuses the flags a format does not read.
func checkLogFlags(fs importFlags, format string) error {
	mapped := format != datasets.LogInspect && format != datasets.LogPromptfoo
	switch {
	case *fs.scorer != "" && format != datasets.LogInspect:
		return clikit.UsageErr(importUsage, "--scorer is for --format inspect")
	case *fs.run != "" && !mapped:
		return clikit.UsageErr(importUsage, "--run is for the mapped formats (jsonl, json, csv, parquet)")
	case format == datasets.LogInspect && (*fs.score != "" || *fs.label != ""):
		return clikit.UsageErr(importUsage, "--format inspect reads the scorer's value (--scorer) and a numeric target as the label")
	case mapped && (*fs.context == "" || *fs.candidate == "" || *fs.score == ""):
		return clikit.UsageErr(importUsage, "--format %s needs --context, --candidate and --score PATHs", format)
	}
	return nil
}

// parseReply reads a judge's reply with prism's own score parser: the
// score of promptfoo --score output.
func parseReply(reply string) (float64, bool) {
	v, _, err := judge.LocateScore(reply)
	return v, err == nil && model.CheckNumber(v) == nil
}

// ensureLogDataset stores the logs' dataset unless the workspace holds
// one of its name, in which case every score must name one of its
// candidates. It reports whether it created the dataset.
func ensureLogDataset(ctx context.Context, s *store.Store, log *datasets.ScoreLog, where string, labelsGiven bool) (bool, error) {
	stored, err := s.Dataset(ctx, log.Dataset.Name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if err := s.PutDataset(ctx, log.Dataset, false); err != nil {
			return false, fmt.Errorf("%s: %w", s.Path(), err)
		}
		return true, nil
	case err != nil:
		return false, err
	case labelsGiven:
		return false, fmt.Errorf("--labels: dataset %q is already in %s with its own labels; --labels is for a dataset the import creates", stored.Name, s.Path())
	}
	for _, r := range log.Rows {
		if _, k := stored.Find(r.Context, r.Candidate); k == nil {
			return false, fmt.Errorf("%s: context %s candidate %s is not in the stored dataset %q; import every log of the task in one command, or into a new dataset with --dataset NAME",
				where, model.Quote(r.Context), model.Quote(r.Candidate), stored.Name)
		}
	}
	return false, nil
}

// applyLabelsFile sets the human labels of a dataset the import creates
// from a labels CSV; a label for a candidate the logs do not score is an
// error naming its line.
func applyLabelsFile(d *model.Dataset, file string) error {
	f, err := model.OpenInput(file, model.MaxTableFile, "a label file")
	if err != nil {
		return err
	}
	defer f.Close()
	labels, err := model.ReadLabelsCSV(f, file)
	if err != nil {
		return err
	}
	for _, l := range labels {
		_, k := d.Find(l.Context, l.Candidate)
		if k == nil {
			return fmt.Errorf("%s:%d: context %s candidate %s is not scored in the logs", file, l.Line, model.Quote(l.Context), model.Quote(l.Candidate))
		}
		if !math.IsNaN(k.Human) && k.Human != l.Human {
			return fmt.Errorf("%s:%d: label %v differs from the log's label %v", file, l.Line, l.Human, k.Human)
		}
		k.Human = l.Human
	}
	return nil
}
