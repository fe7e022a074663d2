package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

func init() {
	register("import", "import judge scores from a tidy CSV into the workspace (import scores)", runImport)
}

const importUsage = `prism import scores --judge NAME [--dataset NAME] [--bank BANK] [--workspace FILE] FILE

FILE (or - for standard input) is the tidy CSV of prism fit:
context,candidate,probe,score[,run][,wording]. Its scores are stored as the
answers of the stored judge --judge (an "import" judge, created if absent)
on the stored dataset --dataset (default: the workspace's only dataset);
every row must name one of its candidates. With --bank (a built-in
name, a TOML file or a hash prefix) the scores are ones given on that
bank: each must lie on its scale for the dataset's task. Without it they
keep their own scale (a reward model's logits, a 0-1 grader). The file is
stored whole or not at all.
The workspace defaults to $PRISM_WORKSPACE, else prism.db in the current directory.`

func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "scores" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(stdout, usageText(importUsage))
			return nil
		}
		return usageErr(importUsage, "want import scores")
	}
	fs := newWorkspaceFlags("prism import scores", stderr, importUsage)
	dataset := fs.String("dataset", "", "dataset `NAME` in the workspace the scores belong to (default: the only one)")
	judge := fs.String("judge", "", "the stored judge `NAME` to store the scores under (an import judge, created if absent)")
	bankRef := fs.String("bank", "", "the `BANK` the scores were given on: each score must lie on its scale (default: no check)")
	pos, help, err := fs.parse(args[1:], stdout)
	if err != nil || help {
		return err
	}
	switch {
	case len(pos) != 1:
		return usageErr(importUsage, "want one FILE (or - for standard input)")
	case *judge == "":
		return usageErr(importUsage, "--judge NAME is required: the name the imported scores are stored under")
	}
	file := pos[0]
	var rows []model.ScoreRow
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
	s, err := openWorkspace(ctx, *fs.workspace, false)
	if err != nil {
		return err
	}
	defer s.Close()
	ds, err := pickDataset(ctx, s, *dataset, importUsage)
	if err != nil {
		return err
	}
	if *bankRef != "" {
		if err := checkBankScale(ctx, s, *bankRef, fs, ds, file, rows); err != nil {
			return err
		}
	}
	n, err := s.ImportScores(ctx, ds, *judge, rows)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	fmt.Fprintf(stdout, "imported %d scores from %s as judge %s on %s into %s\n", n, file, *judge, ds, s.Path())
	return s.Close()
}

// checkBankScale checks imported scores against the scale of the bank
// they were given on, for the dataset's task.
func checkBankScale(ctx context.Context, s *store.Store, ref string, fs workspaceFlags, dataset, file string, rows []model.ScoreRow) error {
	b, _, err := resolveBank(ctx, ref, fs)
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
