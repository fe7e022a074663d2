package analysis

import (
	"context"
	"fmt"
	"io"

	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("export", "export judge scores and human labels as the CSVs of prism fit (export scores|labels)", runExport)
	clikit.RegisterArgs("export", func() []string { return []string{"scores", "labels"} })
}

const exportUsage = `
  prism export scores [--dataset NAME] [--judge NAME] [--bank BANK] [--runs R] [--format csv|parquet] [-o FILE] [--workspace FILE]
  prism export labels [--dataset NAME] [--format csv|parquet] [-o FILE] [--workspace FILE]

scores writes context,candidate,probe,score,run,wording: one row per answered
request (failed attempts are not answers) of one study: under --bank, else the
judge's only study prism run planned (several are never pooled: name one), in
its planned runs (--runs all or N for more), with the judge's rubric ratings
(rubric:NAME/CRITERION rows, the fit's baselines). With -o FILE, FILE.study.json
beside it names the study (dataset, judge, bank, scale, runs, counts).
A listwise study's scores (prism run --listwise) add order,repeat,position: the
presentation order index, its repeat and the 1-based position the candidate was
shown at (docs/datasets.md).
labels writes context,candidate,human: the dataset's human targets.
Together they are the --scores and --labels files of prism fit.
--format parquet writes the same columns as a Parquet file (a missing score
null; a listwise study's order columns left out) for pandas and polars; it
needs -o.
--dataset and --judge (a stored judge name, as prism ls lists) may be left
out when the workspace holds one. Without -o, to standard output.
The workspace defaults to $PRISM_WORKSPACE, else prism.db in the current directory.`

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "labels" {
		return runExportLabels(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "scores" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(stdout, clikit.UsageText(exportUsage))
			return nil
		}
		return clikit.UsageErr(exportUsage, "want scores or labels")
	}
	fs, dataset, out, format := newExportFlags("prism export scores", stderr)
	judge := fs.String("judge", "", "the stored judge `NAME` whose answers are written (default: the only one)")
	bank := fs.String("bank", "", "the study under this `BANK` (built-in name, TOML file or workspace hash prefix; default: the judge's only planned study)")
	runsFlag := fs.String("runs", "planned", "the study's `RUNS` to write: planned, all, or the first N")
	if help, err := parseExportFlags(fs, args[1:], stdout, format, out); err != nil || help {
		return err
	}
	runs, err := study.ParseRuns(*runsFlag)
	if err != nil {
		return clikit.UsageErr(exportUsage, "%v", err)
	}
	s, err := clikit.OpenWorkspaceRO(ctx, *fs.Workspace)
	if err != nil {
		return err
	}
	defer s.Close()
	// Name a missing dataset, judge or study instead of writing an empty file.
	var in fitInput
	info, err := pickStudy(ctx, s, fs, studyRef{dataset: *dataset, judge: *judge, bank: *bank, runs: runs}, &in, stderr)
	if err != nil {
		return err
	}
	ds, jn := in.dataset, in.judge
	data, err := study.Read(ctx, s, info, runs)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Path(), err)
	}
	rows, err := withRubricRows(ctx, s, data.Rows, ds, jn)
	if err != nil {
		return err
	}
	write := func(w io.Writer) error { return model.WriteScoresCSV(w, rows) }
	if *format == "parquet" {
		write = func(w io.Writer) error { return datasets.WriteScoresParquet(w, rows) }
	} else if j, err := s.Judge(ctx, jn); err == nil {
		if seed, ok := j.OrderSeed(); ok {
			// A listwise study's rows carry their order, repeat and position.
			d, err := s.Dataset(ctx, ds)
			if err != nil {
				return err
			}
			write = func(w io.Writer) error { return writeListwiseScoresCSV(w, rows, d, seed) }
		}
	}
	if *out == "" {
		return write(stdout)
	}
	if err := model.WriteFileAtomic(*out, write); err != nil {
		return err
	}
	side := *out + ".study.json"
	if err := model.WriteFileAtomic(side, func(w io.Writer) error { return clikit.WriteJSON(w, data.Study) }); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %d scores to %s (the study: %s)\n", len(rows), *out, side)
	return nil
}

// withRubricRows adds the judge's rubric ratings on the dataset (its
// rubric studies' rows) to a probe study's rows: the file then holds what
// prism fit scores as the study's baselines.
func withRubricRows(ctx context.Context, st *store.Store, rows []model.ScoreRow, dataset, judge string) ([]model.ScoreRow, error) {
	studies, err := st.Studies(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range studies {
		if s.Rubric && s.Dataset == dataset && s.Judge == judge {
			r, err := st.Scores(ctx, dataset, judge, s.BankHash)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r...)
		}
	}
	return rows, nil
}

func runExportLabels(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, dataset, out, format := newExportFlags("prism export labels", stderr)
	if help, err := parseExportFlags(fs, args, stdout, format, out); err != nil || help {
		return err
	}
	s, err := clikit.OpenWorkspaceRO(ctx, *fs.Workspace)
	if err != nil {
		return err
	}
	defer s.Close()
	ds, err := clikit.PickDataset(ctx, s, *dataset, exportUsage)
	if err != nil {
		return err
	}
	d, err := s.Dataset(ctx, ds)
	if err != nil {
		return fmt.Errorf("%s: dataset %q: %w", s.Path(), ds, err)
	}
	labels := d.Labels()
	if *out == "" {
		return model.WriteLabelsCSV(stdout, labels)
	}
	write := func(w io.Writer) error { return model.WriteLabelsCSV(w, labels) }
	if *format == "parquet" {
		write = func(w io.Writer) error { return datasets.WriteLabelsParquet(w, labels) }
	}
	if err := model.WriteFileAtomic(*out, write); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %d labels to %s\n", len(labels), *out)
	return nil
}

// newExportFlags are the flags both exports take: the dataset, -o and
// --format.
func newExportFlags(name string, stderr io.Writer) (fs clikit.WorkspaceFlags, dataset, out, format *string) {
	fs = clikit.NewWorkspaceFlags(name, stderr, exportUsage)
	dataset = fs.String("dataset", "", "dataset `NAME` in the workspace (default: the only one)")
	out = fs.String("o", "", "write to `FILE` instead of standard output")
	format = fs.String("format", "csv", "the file's `FORMAT`: csv or parquet")
	return fs, dataset, out, format
}

// parseExportFlags parses an export's command line and checks it: no
// arguments, a format it writes; help is true after -h.
func parseExportFlags(fs clikit.WorkspaceFlags, args []string, stdout io.Writer, format, out *string) (help bool, err error) {
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return help, err
	}
	if err := clikit.NoArgs(exportUsage, pos); err != nil {
		return false, err
	}
	return false, checkExportFormat(*format, *out)
}

// checkExportFormat accepts csv, and parquet to a file (a binary file
// on a terminal helps no one).
func checkExportFormat(format, out string) error {
	switch {
	case format != "csv" && format != "parquet":
		return clikit.UsageErr(exportUsage, "--format %s: want csv or parquet", model.Quote(format))
	case format == "parquet" && out == "":
		return clikit.UsageErr(exportUsage, "--format parquet needs -o FILE")
	}
	return nil
}
