package analysis

import (
	"context"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/figures"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/jobs"
)

// Export writes rep, a fit of key's study (FitStudy), as files for a
// paper into dir: figures.ExportStudy of the study's planned runs, the
// runs FitStudy read, so that it writes what prism fit --figures does.
// sigErr says why the signal figure was left out.
func Export(ctx context.Context, st *store.Store, key study.Key, rep *calib.Report, dir string) (paths []string, sigErr, err error) {
	info, err := jobs.PickStudy(ctx, st, key)
	if err != nil {
		return nil, nil, err
	}
	return figures.ExportStudy(ctx, st, info, study.Runs{}, rep, dir)
}
