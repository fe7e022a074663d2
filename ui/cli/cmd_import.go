package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/prism-eval/prism/model"
)

func init() {
	register("import", "import judge scores from a tidy CSV into the workspace (import scores)", runImport)
}

const importUsage = `prism import scores --dataset NAME --judge NAME [--workspace FILE] FILE

FILE (or - for standard input) is the tidy CSV of prism fit:
context,candidate,probe,score[,run][,wording]. Its scores are stored as the
answers of an "import" judge named --judge, created if absent, on the stored
dataset --dataset; every row must name one of its candidates. The file is
stored whole or not at all.
The workspace defaults to $PRISM_WORKSPACE, else prism.db in the current directory.`

func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "scores" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(stdout, usageText(importUsage))
			return nil
		}
		return fmt.Errorf("%w: %s", errUsage, importUsage)
	}
	fs := newWorkspaceFlags("prism import scores", stderr, importUsage)
	dataset := fs.String("dataset", "", "stored dataset `NAME` the scores belong to")
	judge := fs.String("judge", "", "judge `NAME` to store the scores under")
	pos, help, err := fs.parse(args[1:], stdout)
	if err != nil || help {
		return err
	}
	if len(pos) != 1 || *dataset == "" || *judge == "" {
		return fmt.Errorf("%w: %s", errUsage, importUsage)
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
	n, err := s.ImportScores(ctx, *dataset, *judge, rows)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	fmt.Fprintf(stdout, "imported %d scores from %s as judge %s on %s into %s\n", n, file, *judge, *dataset, s.Path())
	return s.Close()
}
