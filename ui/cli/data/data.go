package data

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("data", "import, list and remove datasets in the workspace (import|ls|rm)", runData)
	clikit.RegisterArgs("data", func() []string { return []string{"import", "ls", "rm"} })
	clikit.RegisterArgs("data import", func() []string { return append(datasets.Formats(), datasets.FormatDemo) })
}

const dataUsage = `
  prism data import FORMAT FILE [--name NAME] [--replace] [--workspace FILE]
  prism data import parquet|jsonl|json|csv FILE --context COL --candidate COL --text COL [--source COL] [--human COL | --criteria COL,COL] [--task TASK]
  prism data import demo [--name NAME] [--replace] [--workspace FILE]
  prism data ls [--workspace FILE]
  prism data rm NAME [--workspace FILE]

FORMAT is one of: %s.
With --context, --candidate and --text (and always for parquet) the file is
read by its columns, as Hugging Face Hub datasets are downloaded: one
record per candidate, COL a column or a dotted path (docs/datasets.md).
The workspace defaults to $PRISM_WORKSPACE, else prism.db in the current directory.`

func runData(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	usage := fmt.Sprintf(dataUsage, strings.Join(append(datasets.Formats(), datasets.FormatDemo), ", "))
	if len(args) == 0 {
		return clikit.UsageErr(usage, "a subcommand is required")
	}
	switch args[0] {
	case "import":
		return runDataImport(ctx, args[1:], stdout, stderr, usage)
	case "ls", "list":
		return runDataList(ctx, args[1:], stdout, stderr, usage)
	case "rm", "remove":
		return runDataRemove(ctx, args[1:], stdout, stderr, usage)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, clikit.UsageText(usage))
		return nil
	}
	return clikit.UsageErr(usage, "unknown subcommand %q", args[0])
}

func runDataImport(ctx context.Context, args []string, stdout, stderr io.Writer, usage string) error {
	fs := clikit.NewWorkspaceFlags("prism data import", stderr, usage)
	name := fs.String("name", "", "dataset `NAME` in the workspace (default: the loader's name, e.g. summeval)")
	replace := fs.Bool("replace", false, "replace a stored dataset of the same name, with its requests and responses")
	cols := addColumnFlags(fs)
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	var d *model.Dataset
	switch {
	case len(pos) == 1 && pos[0] == datasets.FormatDemo:
		d = datasets.Demo()
	case len(pos) == 2 && (cols.given() || pos[0] == datasets.LogParquet):
		if d, err = loadMappedDataset(pos[0], pos[1], cols); err != nil {
			return err
		}
	case len(pos) == 2:
		if d, err = datasets.Load(pos[0], pos[1]); err != nil {
			return err // loaders name the file, line and field
		}
	default:
		return clikit.UsageErr(usage, "want FORMAT FILE")
	}
	switch {
	case *name != "":
		d.Name = *name
	case datasets.BenchmarkName(pos[0]) != "":
		// A named benchmark is known by its name, not by its file's
		// (SummEval ships as data.json).
		d.Name = datasets.BenchmarkName(pos[0])
	}
	s, err := clikit.OpenWorkspace(ctx, *fs.Workspace, true)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.PutDataset(ctx, d, *replace); err != nil {
		if errors.Is(err, store.ErrExists) {
			return fmt.Errorf("%s: dataset %q is already in the workspace; pass --replace to overwrite it (and its responses) or --name to keep both", s.Path(), d.Name)
		}
		return fmt.Errorf("%s: %w", s.Path(), err)
	}
	fmt.Fprintf(stdout, "imported %s: %d contexts, %d candidates (format %s, task %s, metric %s) into %s\n",
		d.Name, len(d.Contexts), d.NumCandidates(), d.Format, d.Task, d.Metric, s.Path())
	return s.Close()
}

func runDataList(ctx context.Context, args []string, stdout, stderr io.Writer, usage string) error {
	fs := clikit.NewWorkspaceFlags("prism data ls", stderr, usage)
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) > 0 {
		return clikit.UsageErr(usage, "prism data ls takes no arguments")
	}
	s, err := clikit.OpenWorkspaceRO(ctx, *fs.Workspace)
	if err != nil {
		return err
	}
	defer s.Close()
	infos, err := s.Datasets(ctx)
	if err != nil {
		return err
	}
	if len(infos) == 0 {
		fmt.Fprintf(stdout, "no datasets in %s (prism data import FORMAT FILE)\n", s.Path())
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFORMAT\tTASK\tMETRIC\tCONTEXTS\tCANDIDATES\tCREATED")
	for _, in := range infos {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", in.Name, in.Format, in.Task, in.Metric,
			in.Contexts, in.Candidates, in.Created.Local().Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

func runDataRemove(ctx context.Context, args []string, stdout, stderr io.Writer, usage string) error {
	fs := clikit.NewWorkspaceFlags("prism data rm", stderr, usage)
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) != 1 {
		return clikit.UsageErr(usage, "prism data rm takes one NAME")
	}
	s, err := clikit.OpenWorkspace(ctx, *fs.Workspace, false)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.DeleteDataset(ctx, pos[0]); err != nil {
		return fmt.Errorf("%s: %w", s.Path(), err)
	}
	fmt.Fprintf(stdout, "removed %s from %s\n", pos[0], s.Path())
	return s.Close()
}
