package figures

import (
	"context"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/signal"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model/store"
)

// ExportStudy is Export of rep, fitted on the study info names in its
// runs runs, with the signal figure of the same runs' answers (study.Read,
// the rows the fit read): what the TUI Fit tab's e and prism fit
// --figures write. sigErr says why the signal figure was left out (no
// neutral answers: no ratio).
func ExportStudy(ctx context.Context, st *store.Store, info store.StudyInfo, runs study.Runs, rep *calib.Report, dir string) (paths []string, sigErr, err error) {
	var sig *signal.Report
	d, sigErr := study.Read(ctx, st, info, runs)
	if sigErr == nil {
		// docs/protocol.md §8's 2,000 resamples, seed 42, as the Bank tab's final panel.
		sig, sigErr = signal.Signal(ctx, d.Rows, signal.DefaultOptions())
	}
	paths, err = Export(dir, rep, sig)
	return paths, sigErr, err
}
