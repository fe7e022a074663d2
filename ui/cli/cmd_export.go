package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

func init() {
	register("export", "export judge scores and human labels as the CSVs of prism fit (export scores|labels)", runExport)
}

const exportUsage = `
  prism export scores [--dataset NAME] [--judge NAME] [--bank BANK] [-o FILE] [--workspace FILE]
  prism export labels [--dataset NAME] [-o FILE] [--workspace FILE]

scores writes context,candidate,probe,score,run,wording: one row per answered
request (failed attempts are not answers). Without --bank, every bank's scores.
A batched study's scores (prism run --batched) add order,repeat,position: the
presentation order index, its repeat and the 1-based position the candidate was
shown at (docs/datasets.md).
labels writes context,candidate,human: the dataset's human targets.
Together they are the --scores and --labels files of prism fit.
--dataset and --judge (a stored judge name, as prism ls lists) may be left
out when the workspace holds one. Without -o, to standard output.
The workspace defaults to $PRISM_WORKSPACE, else prism.db in the current directory.`

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "labels" {
		return runExportLabels(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "scores" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(stdout, usageText(exportUsage))
			return nil
		}
		return usageErr(exportUsage, "want scores or labels")
	}
	fs := newWorkspaceFlags("prism export scores", stderr, exportUsage)
	dataset := fs.String("dataset", "", "dataset `NAME` in the workspace (default: the only one)")
	judge := fs.String("judge", "", "the stored judge `NAME` whose answers are written (default: the only one)")
	bank := fs.String("bank", "", "only scores from this `BANK` snapshot (built-in name, TOML file or workspace hash prefix; default: every bank)")
	out := fs.String("o", "", "write to `FILE` instead of standard output")
	pos, help, err := fs.parse(args[1:], stdout)
	if err != nil || help {
		return err
	}
	if len(pos) > 0 {
		return usageErr(exportUsage, "unexpected argument %q", pos[0])
	}
	s, err := openWorkspaceRO(ctx, *fs.workspace)
	if err != nil {
		return err
	}
	defer s.Close()
	// Name a missing dataset or judge instead of writing an empty file.
	ds, err := pickDataset(ctx, s, *dataset, exportUsage)
	if err != nil {
		return err
	}
	jn, err := pickJudge(ctx, s, *judge, exportUsage, nil, "")
	if err != nil {
		return err
	}
	hash := ""
	if *bank != "" {
		b, _, err := resolveBank(ctx, *bank, fs)
		if err != nil {
			return err
		}
		hash = b.Hash()
	}
	rows, err := s.Scores(ctx, ds, jn, hash)
	if err != nil {
		return err
	}
	write := func(w io.Writer) error { return model.WriteScoresCSV(w, rows) }
	if j, err := s.Judge(ctx, jn); err == nil {
		if seed, ok := j.OrderSeed(); ok {
			// A batched study's rows carry their order, repeat and position.
			d, err := s.Dataset(ctx, ds)
			if err != nil {
				return err
			}
			write = func(w io.Writer) error { return writeBatchedScoresCSV(w, rows, d, seed) }
		}
	}
	if *out == "" {
		return write(stdout)
	}
	if err := model.WriteFileAtomic(*out, write); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %d scores to %s\n", len(rows), *out)
	return nil
}

func runExportLabels(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newWorkspaceFlags("prism export labels", stderr, exportUsage)
	dataset := fs.String("dataset", "", "dataset `NAME` in the workspace (default: the only one)")
	out := fs.String("o", "", "write to `FILE` instead of standard output")
	pos, help, err := fs.parse(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) > 0 {
		return usageErr(exportUsage, "unexpected argument %q", pos[0])
	}
	s, err := openWorkspaceRO(ctx, *fs.workspace)
	if err != nil {
		return err
	}
	defer s.Close()
	ds, err := pickDataset(ctx, s, *dataset, exportUsage)
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
	if err := model.WriteFileAtomic(*out, func(w io.Writer) error { return model.WriteLabelsCSV(w, labels) }); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %d labels to %s\n", len(labels), *out)
	return nil
}

func hasDataset(infos []store.DatasetInfo, name string) bool {
	for _, in := range infos {
		if in.Name == name {
			return true
		}
	}
	return false
}
