package cli

import (
	"context"
	"strings"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// fitStream folds a workspace's score rows into a design builder as
// Store.ScanFitInput reads them, as a fit from files does with the CSV
// (readFitInputInto): the fit then holds the study's packed answers and
// its design, never a slice of score rows (docs/performance.md, "Fit
// memory"). The builder is made once the source is known, so its errors
// name the workspace, dataset and judge as BuildDesign's would.
type fitStream struct {
	opts calib.BuildOptions // ScoresFile is set from the source
	mem  *fitMemLimit       // nil: no limit
	b    *calib.DesignBuilder
}

// read fills in.labels and the builder. in.rows keeps only what else
// reads the rows: the rubric probes' rows (rubricRatings) and, for
// RunsOf (study.Provenance), the first baseline row of each run.
func (f *fitStream) read(ctx context.Context, st *store.Store, in *fitInput, info store.StudyInfo, runs study.Runs) error {
	opts := f.opts
	opts.ScoresFile = in.source
	f.b = calib.NewDesignBuilder(opts)
	mem := f.mem
	if mem == nil {
		mem = &fitMemLimit{} // off
	}
	seen := map[string]bool{}
	s, labels, err := study.Scan(ctx, st, info, runs,
		func(labs []model.Label, rows int) {
			f.b.Reserve(len(labs))
			// The study's packed answers stay live while the design is
			// built: the limit makes room for them beside it.
			mem.hold(int64(rows) * store.ScanRowBytes)
			mem.update(f.b.DesignBytes())
		},
		func(r *model.ScoreRow) error {
			switch {
			case strings.HasPrefix(r.Probe, "rubric:"):
				in.rows = append(in.rows, *r)
			case r.Probe == model.ProbeBaseline && !seen[r.Run]:
				seen[r.Run] = true
				in.rows = append(in.rows, *r)
			}
			err := f.b.Add(r)
			mem.update(f.b.DesignBytes())
			return err
		})
	in.labels, in.study = labels, s
	return err
}
