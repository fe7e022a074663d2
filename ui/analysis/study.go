package analysis

import (
	"context"
	"fmt"

	"github.com/charmbracelet/x/ansi"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/forest"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/jobs"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// FitOptions are the options of the Fit tab's fits: the protocol's
// defaults, as `prism fit`, with the tab's metric and, when taylor,
// the diagonal Taylor correction (`prism fit --taylor`).
func FitOptions(metric string, taylor bool) calib.Options {
	opts := calib.DefaultOptions()
	opts.Metric, opts.Taylor = metric, taylor
	return opts
}

// FitStudy fits key's study with study.Fit, the call prism fit makes:
// its planned runs, the judge's rubric ratings scored beside the methods
// as the report's baselines (SAJA with the forest head, as `prism fit`;
// ratings that cannot be scored are left out with a warning), and the
// design kept whole for a calibrator and for Inspect.
func FitStudy(ctx context.Context, st *store.Store, key study.Key, opts calib.Options) (*study.FitResult, []string, error) {
	info, err := jobs.PickStudy(ctx, st, key)
	if err != nil {
		return nil, nil, err
	}
	res, err := study.Fit(ctx, st, study.FitRequest{Study: info, Options: opts, DropBadBaselines: true, KeepCentered: true,
		Source: study.Source(st.Path(), info),
		Baselines: func(rrs []study.RubricRatings) ([]calib.Baseline, error) {
			return study.Baselines(rrs, baselineOptions())
		}})
	if res == nil {
		return nil, nil, err
	}
	return res, res.Warnings, err
}

// baselineOptions turn rubric ratings into baselines as `prism fit`'s
// defaults do: SAJA with the random-forest head (300 trees, seed 42).
func baselineOptions() study.BaselineOptions {
	return study.BaselineOptions{Head: calib.BaselineForest, Forest: forest.DefaultOptions()}
}

// Remember stores a fit the Fit tab made (study.Remember, as prism fit
// stores its own); a workspace that cannot be written loses only that,
// and says so.
func Remember(ctx context.Context, st *store.Store, res *study.FitResult) []string {
	if _, err := study.Remember(ctx, st, res.Report); err != nil {
		return []string{"the fit was not stored in the workspace: " + err.Error()}
	}
	return nil
}

// StudyLines name the study a report was computed from, as the CLI's
// reports do (model.Study.Short), muted and fitted to w; none for a
// report without one.
func StudyLines(st *styles.Styles, s *model.Study, w int) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, l := range s.Short() {
		out = append(out, st.Muted.Render(widgets.Fit(l, w)))
	}
	return out
}

// KeyLine names the judge, bank version and dataset of key in w cells
// (Inspect's candidate, the Data tab's calibrator): the dataset gives
// way first, then the bank; the judge's name is cut in its middle only
// when it alone does not fit.
func KeyLine(k study.Key, w int) string {
	for _, s := range []string{
		fmt.Sprintf("judge %s · bank %s · dataset %s", k.Judge, widgets.ShortHash(k.BankHash), k.Dataset),
		fmt.Sprintf("judge %s · bank %s", k.Judge, widgets.ShortHash(k.BankHash)),
	} {
		if ansi.StringWidth(s) <= w {
			return s
		}
	}
	return "judge " + widgets.ClipMiddle(k.Judge, w-len("judge "))
}
