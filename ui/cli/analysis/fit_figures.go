package analysis

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/figures"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// output prints a fit's report, then writes --figures when asked.
func (f *fitFlags) output(ctx context.Context, a fitArgs, rep *calib.Report, d *calib.Design, stdout, stderr io.Writer) error {
	if err := f.print(ctx, a, rep, d, stdout, stderr); err != nil {
		return err
	}
	return f.writeFigures(ctx, rep, a.runs, stderr)
}

// errNoStudy is why a fit of score files has no signal figure.
var errNoStudy = errors.New("the scores come from files, not a workspace study")

// writeFigures writes rep into --figures DIR as the TUI Fit tab's e does
// (figures.ExportStudy of the study the report names, in the runs the
// fit read) and lists the paths written on stderr. A fit of score files
// has no study to draw the signal figure from: the rest is written.
func (f *fitFlags) writeFigures(ctx context.Context, rep *calib.Report, runs study.Runs, stderr io.Writer) error {
	dir := *f.figures
	if dir == "" {
		return nil
	}
	var paths []string
	var sigErr, err error
	if rep.Study == nil {
		paths, err = figures.Export(dir, rep, nil)
		sigErr = errNoStudy
	} else {
		paths, sigErr, err = exportStudy(ctx, *f.fs.Workspace, rep, runs, dir)
	}
	for _, p := range paths {
		fmt.Fprintln(stderr, "prism fit: wrote", p)
	}
	if err != nil {
		return fmt.Errorf("--figures: %w", err)
	}
	if sigErr != nil {
		fmt.Fprintln(stderr, "prism fit: no signal figure:", sigErr)
	}
	return nil
}

// exportStudy picks the study rep names in the workspace at path and
// exports it (figures.ExportStudy).
func exportStudy(ctx context.Context, path string, rep *calib.Report, runs study.Runs, dir string) (paths []string, sigErr, err error) {
	st, err := clikit.OpenWorkspaceRO(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	s := rep.Study
	info, _, err := study.Pick(ctx, st, s.Dataset, s.Judge, s.BankHash)
	if err != nil {
		return nil, nil, err
	}
	return figures.ExportStudy(ctx, st, info, runs, rep, dir)
}
