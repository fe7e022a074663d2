package analysis

import (
	"context"
	"fmt"
	"io"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// studyFit is a plain prism fit of a workspace's study: what to read and
// how to fit it.
type studyFit struct {
	ref       studyRef
	opts      calib.Options
	bf        baselineFlags
	metricSet bool // --metric was given: the dataset's own metric does not apply
	save      string
	method    calib.Method
}

// fitStudy picks the study (study.Pick), fits it with study.Fit (the
// call the TUI's Fit tab makes), saves the calibrator when asked and
// stores the report in the workspace.
func fitStudy(ctx context.Context, wf clikit.WorkspaceFlags, f studyFit, stderr io.Writer) (*calib.Report, *calib.Design, error) {
	mem := newFitMemLimit()
	defer mem.restore()
	var extra []*banks.Rubric
	for _, file := range splitList(*f.bf.rubricFiles) {
		r, err := banks.ReadRubricFile(file)
		if err != nil {
			return nil, nil, fmt.Errorf("--rubric-file: %w", err)
		}
		extra = append(extra, r)
	}
	in, err := func() (in fitInput, err error) {
		st, err := clikit.OpenWorkspaceRO(ctx, *wf.Workspace)
		if err != nil {
			return in, err
		}
		defer st.Close()
		info, err := pickStudy(ctx, st, wf, f.ref, &in, stderr)
		if err != nil {
			return in, err
		}
		if !f.metricSet && in.metric != "" {
			f.opts.Metric = in.metric // the dataset's own metric (JudgeBench: pairwise)
		}
		req := study.FitRequest{Study: info, Runs: f.ref.runs, Options: f.opts, Rubrics: extra, KeepCentered: f.save != "",
			Hold: mem.hold, Grow: mem.update, Source: in.source, Target: f.ref.target}
		if *f.bf.which != "none" {
			req.Baselines = f.bf.baselines
		}
		res, err := study.Fit(ctx, st, req)
		if res != nil {
			for _, w := range res.Warnings {
				fmt.Fprintln(stderr, "prism fit: warning:", w)
			}
		}
		if err != nil {
			return in, err
		}
		in.rep, in.design, in.rows = res.Report, res.Design, res.Rows
		warnUnbalanced(stderr, wf.Name(), res.Report.Study)
		if f.save != "" {
			in.bank, in.judgeSnap, err = study.Provenance(ctx, st, in.dataset, in.judge, info.BankHash, in.rows)
		}
		return in, err
	}()
	if err != nil {
		return nil, nil, err
	}
	if f.save != "" {
		src := calibratorSource{dataset: in.dataset, source: in.source, bank: in.bank, judge: in.judgeSnap}
		if err := saveCalibrator(ctx, f.save, in.design, in.rep, f.opts, f.method, src, stderr); err != nil {
			return nil, nil, err
		}
	}
	rememberFit(ctx, *wf.Workspace, in.rep, stderr)
	return in.rep, in.design, nil
}

// warnUnbalanced warns when the runs read are unbalanced across contexts:
// each candidate's scores are then the mean of the runs it has.
func warnUnbalanced(stderr io.Writer, prog string, s *model.Study) {
	if s != nil && !s.Balanced() && stderr != nil {
		fmt.Fprintf(stderr, "%s: warning: unbalanced runs: contexts have %d to %d runs of the baseline (runs %s); each candidate's scores are averaged over the runs it has\n",
			prog, s.RunsPerContext[0], s.RunsPerContext[1], s.Runs)
	}
}
