package study

import (
	"context"
	"fmt"
	"strings"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// FitRequest is one fit of a study: prism fit from a workspace and the
// TUI's Fit tab both make one and call Fit, so a study gives the same
// report whichever shows it.
type FitRequest struct {
	Study   store.StudyInfo // from Pick
	Runs    Runs
	Options calib.Options // its Baselines are set by Fit from Baselines
	// Baselines turns the judge's rubric ratings into the report's
	// baselines (nil: no baselines); Rubrics are rubrics beyond the
	// built-in ones to match imported ratings to (--rubric-file).
	Baselines func([]RubricRatings) ([]calib.Baseline, error)
	Rubrics   []*banks.Rubric
	// DropBadBaselines fits the methods alone, with a warning, when the
	// ratings cannot be scored (the TUI's choice); false fails instead.
	DropBadBaselines bool
	// KeepCentered keeps J̃ in the design (a calibrator is built from it).
	KeepCentered bool
	// Hold and Grow, when not nil, hear of the memory the read holds (the
	// study's packed answers) and of the design as it grows (prism fit's
	// memory limit).
	Hold, Grow func(bytes int64)
	// Source names the study in errors and reports (the workspace path,
	// dataset and judge).
	Source string
	// Target, when not "", is the criterion of the dataset the fit
	// calibrates toward (CriterionLabels) instead of its overall label;
	// the report's Study records it.
	Target string
}

// FitResult is a fit's report, the design it was fitted on (for a
// calibrator) and what the fit found worth a warning.
type FitResult struct {
	Report   *calib.Report
	Design   *calib.Design
	Warnings []string
	// Rows are the rows the fit keeps beside its design: the rubric
	// probes' and the first baseline row of each run (Provenance's RunsOf).
	Rows []model.ScoreRow
	// Source is the request's.
	Source string
}

// Fit reads the study's answers into a design as they come (it never
// holds the study's rows), scores the judge's rubric baselines beside the
// methods, and fits calib.FitDesign on the labelled candidates with
// answers. The report carries the Study.
func Fit(ctx context.Context, st *store.Store, req FitRequest) (*FitResult, error) {
	opts := req.Options
	opts.ScoresFile, opts.LabelsFile = req.Source, req.Source
	bo := calib.BuildOptions{ScoresFile: req.Source, LabelsFile: req.Source, Global: opts.Global, DropCentered: !req.KeepCentered,
		ComparisonsFile: req.Source}
	if opts.Metric == model.MetricPairwise && !opts.Global {
		// The dataset's comparison labels are what its pairwise metric
		// counts; the training target stays its labels.
		var err error
		if bo.Comparisons, err = Comparisons(ctx, st, req.Study.Dataset); err != nil {
			return nil, fmt.Errorf("%s: %w", req.Source, err)
		}
	}
	b := calib.NewDesignBuilder(bo)
	grow := func() {
		if req.Grow != nil {
			req.Grow(b.DesignBytes())
		}
	}
	res := &FitResult{Source: req.Source}
	seen := map[string]bool{}
	s, labels, err := Scan(ctx, st, req.Study, req.Runs, func(labs []model.Label, rows int) {
		b.Reserve(len(labs))
		if req.Hold != nil {
			req.Hold(int64(rows) * store.ScanRowBytes)
		}
		grow()
	}, func(r *model.ScoreRow) error {
		switch {
		case strings.HasPrefix(r.Probe, model.ProbeRubric+":"):
			res.Rows = append(res.Rows, *r)
		case r.Probe == model.ProbeBaseline && !seen[r.Run]:
			seen[r.Run] = true
			res.Rows = append(res.Rows, *r)
		}
		err := b.Add(r)
		grow()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req.Source, err)
	}
	if req.Target != "" {
		// The criterion replaces the label before the design is built:
		// nothing else of the fit changes.
		if labels, err = CriterionLabels(ctx, st, s.Dataset, req.Target); err != nil {
			return nil, fmt.Errorf("%s: %w", req.Source, err)
		}
		s.Target = req.Target
	}
	if opts.Baselines, res.Warnings, err = req.baselines(ctx, st, res.Rows); err != nil {
		return nil, err
	}
	d, w, err := b.Build(labels)
	res.Warnings = append(res.Warnings, w...)
	if err != nil {
		return res, err
	}
	res.Design = d
	rep, w, err := calib.FitDesign(ctx, d, opts)
	if err != nil && len(opts.Baselines) > 0 && req.DropBadBaselines && ctx.Err() == nil {
		opts.Baselines = nil
		var again error
		if rep, w, again = calib.FitDesign(ctx, d, opts); again == nil {
			res.Warnings = append(res.Warnings, "rubric baselines left out: "+err.Error())
		}
		err = again
	}
	res.Warnings = append(res.Warnings, w...)
	if err != nil {
		return res, err
	}
	// Budgets are what the judge's answers cost; imported scores carry
	// no such record.
	if len(rep.Baselines) > 0 && s.Backend != store.ImportBackend {
		usage, err := st.Usage(ctx, s.Dataset, s.Judge, s.BankHash)
		if err != nil {
			return res, err
		}
		rep.Budgets = MethodBudgets(usage, d.Columns)
	}
	rep.Study = Of(s, rep)
	res.Report = rep
	return res, nil
}

// baselines reads the judge's rubric ratings and makes them the fit's
// baselines, with warnings for ratings no rubric matches.
func (req *FitRequest) baselines(ctx context.Context, st *store.Store, rows []model.ScoreRow) ([]calib.Baseline, []string, error) {
	if req.Baselines == nil {
		return nil, nil, nil
	}
	rrs, unknown, err := RubricRatingsOf(ctx, st, req.Study.Dataset, req.Study.Judge, rows, req.Rubrics)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: rubric ratings: %w", req.Source, err)
	}
	var warnings []string
	for _, name := range unknown {
		warnings = append(warnings, fmt.Sprintf("rubric ratings of %q: no built-in rubric of that name (prism fit --rubric-file scores them); not scored", name))
	}
	if len(rrs) == 0 {
		return nil, warnings, nil
	}
	bs, err := req.Baselines(rrs)
	if err != nil && req.DropBadBaselines {
		return nil, append(warnings, "rubric baselines left out: "+err.Error()), nil
	}
	return bs, warnings, err
}
