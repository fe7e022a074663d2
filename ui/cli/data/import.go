package data

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("import", "import judge scores from a tidy CSV into the workspace (import scores)", runImport)
	clikit.RegisterArgs("import", func() []string { return []string{"scores"} })
}

const importUsage = `
  prism import scores --judge NAME [--dataset NAME] [--bank BANK] [--workspace FILE] FILE
  prism import scores --format inspect --judge NAME [--scorer NAME] [--context metadata.FIELD] [--candidate metadata.FIELD] FILE...
  prism import scores --format promptfoo --judge NAME [--context VAR] [--candidate VAR] [--score score|namedScores.NAME|output] [--label VAR] FILE...
  prism import scores --format jsonl|json|csv|parquet --judge NAME --context PATH --candidate PATH --score PATH [--run PATH] [--label PATH] FILE...

Without --format, FILE (or - for standard input) is the tidy CSV of prism fit:
context,candidate,probe,score[,run][,wording]. Its scores are stored as the
answers of the stored judge --judge (an "import" judge, created if absent)
on the stored dataset --dataset (default: the workspace's only dataset);
every row must name one of its candidates.

With --format the files are another tool's logs (docs/import.md): Inspect
AI's .eval or .json logs, promptfoo's results.json, or any JSON Lines,
JSON, CSV or Parquet file whose fields --context, --candidate, --score
(and --run, --label) name by dotted paths. Their scores are stored on
the dataset --dataset, or without it the one named after the task or
file; when no dataset of that name is stored, it is created from the logs
(with the texts they hold and their labels, or those of --labels FILE).
Several files are read as one: several Inspect logs of one task, one per
model, make one dataset with a candidate per model.

With --bank (a built-in name, a TOML file or a hash prefix) the scores
are ones given on that bank: each must lie on its scale for the
dataset's task. Without it they keep their own scale (a reward model's
logits, a 0-1 grader). The scores are stored whole or not at all.
The workspace defaults to $PRISM_WORKSPACE, else prism.db in the current directory.`

// importFlags are prism import scores' flags.
type importFlags struct {
	clikit.WorkspaceFlags
	dataset, judge, bank, format *string
	context, candidate, score    *string
	run, label, scorer, labels   *string
}

func newImportFlags(stderr io.Writer) importFlags {
	fs := clikit.NewWorkspaceFlags("prism import scores", stderr, importUsage)
	return importFlags{
		WorkspaceFlags: fs,
		dataset:        fs.String("dataset", "", "dataset `NAME` in the workspace the scores belong to (default: the only one; with --format, the task's or file's name)"),
		judge:          fs.String("judge", "", "the stored judge `NAME` to store the scores under (an import judge, created if absent)"),
		bank:           fs.String("bank", "", "the `BANK` the scores were given on: each score must lie on its scale (default: no check)"),
		format:         fs.String("format", "", "the files' `FORMAT`: inspect, promptfoo, jsonl, json, csv or parquet (default: the tidy score CSV)"),
		context:        fs.String("context", "", "where the context id is: a `PATH` (inspect: metadata.FIELD; promptfoo: a test variable)"),
		candidate:      fs.String("candidate", "", "where the candidate id is: a `PATH` (inspect: metadata.FIELD, default the model; promptfoo: a variable, default the provider)"),
		score:          fs.String("score", "", "where the score is: a `PATH` (promptfoo: score, namedScores.NAME or output)"),
		run:            fs.String("run", "", "where the run (repeat) label is: a `PATH` (mapped formats)"),
		label:          fs.String("label", "", "where a human label is: a `PATH` (promptfoo: a variable; inspect reads a numeric target)"),
		scorer:         fs.String("scorer", "", "inspect: the scorer `NAME` (NAME.KEY for a dict value) when the log has several"),
		labels:         fs.String("labels", "", "a labels CSV `FILE` (context,candidate,human) for a dataset the import creates"),
	}
}

func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "scores" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(stdout, clikit.UsageText(importUsage))
			return nil
		}
		return clikit.UsageErr(importUsage, "want import scores")
	}
	fs := newImportFlags(stderr)
	pos, help, err := fs.ParseArgs(args[1:], stdout)
	if err != nil || help {
		return err
	}
	if *fs.judge == "" {
		return clikit.UsageErr(importUsage, "--judge NAME is required: the name the imported scores are stored under")
	}
	if *fs.format != "" {
		return importLogs(ctx, fs, pos, stdout)
	}
	for _, f := range []string{"context", "candidate", "score", "run", "label", "scorer", "labels"} {
		if v := fs.Lookup(f).Value.String(); v != "" {
			return clikit.UsageErr(importUsage, "--%s is for --format (the tidy CSV names its columns)", f)
		}
	}
	if len(pos) != 1 {
		return clikit.UsageErr(importUsage, "want one FILE (or - for standard input)")
	}
	return importTidy(ctx, fs, pos[0], stdout)
}

// importTidy imports a tidy score CSV onto a stored dataset.
func importTidy(ctx context.Context, fs importFlags, file string, stdout io.Writer) error {
	var rows []model.ScoreRow
	var err error
	if file == "-" {
		rows, err = model.ReadScoresCSV(os.Stdin, "<stdin>")
	} else {
		var f *os.File
		if f, err = model.OpenInput(file, model.MaxTableFile, "a score file"); err != nil {
			return err
		}
		rows, err = model.ReadScoresCSV(f, file)
		f.Close()
	}
	if err != nil {
		return err
	}
	s, err := clikit.OpenWorkspace(ctx, *fs.Workspace, false)
	if err != nil {
		return err
	}
	defer s.Close()
	ds, err := clikit.PickDataset(ctx, s, *fs.dataset, importUsage)
	if err != nil {
		return err
	}
	if *fs.bank != "" {
		if err := checkBankScale(ctx, s, *fs.bank, fs.WorkspaceFlags, ds, file, rows); err != nil {
			return err
		}
	}
	n, err := s.ImportScores(ctx, ds, *fs.judge, rows)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	fmt.Fprintf(stdout, "imported %d scores from %s as judge %s on %s into %s\n", n, file, *fs.judge, ds, s.Path())
	return s.Close()
}

// checkBankScale checks imported scores against the scale of the bank
// they were given on, for the dataset's task.
func checkBankScale(ctx context.Context, s *store.Store, ref string, fs clikit.WorkspaceFlags, dataset, file string, rows []model.ScoreRow) error {
	b, _, err := clikit.ResolveBank(ctx, ref, fs)
	if err != nil {
		return fmt.Errorf("--bank: %w", err)
	}
	infos, err := s.Datasets(ctx)
	if err != nil {
		return err
	}
	task := ""
	for _, in := range infos {
		if in.Name == dataset {
			task = in.Task
		}
	}
	t, ok := b.Tasks[task]
	if !ok {
		return fmt.Errorf("--bank %s: bank %q has no task %q (dataset %s)", ref, b.Name, task, dataset)
	}
	return model.CheckScale(rows, file, float64(t.Scale.Min), float64(t.Scale.Max))
}
