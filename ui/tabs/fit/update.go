package fit

import (
	"context"
	"errors"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/jobs"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// Update handles the Fit tab's keys and navigation, the messages of its
// fit, its export and its calibrator saves, and the refits other tabs
// ask for.
func (v *Tab) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.sync()
		v.scroll.Move(msg.Delta)
		return nil
	case tea.KeyPressMsg:
		cmd = v.key(msg)
	case tea.PasteMsg:
		for _, in := range []*textinput.Model{v.exportIn, v.saveIn} {
			if in != nil {
				next, c := in.Update(msg)
				*in = next
				return c
			}
		}
		return nil
	case savedMsg:
		cmd = v.onSaved(msg)
	case jobs.StartedMsg[Result]:
		return msg.Follow(&v.job)
	case jobs.ProgressMsg[Result]:
		cmd = msg.Apply(&v.job)
	case jobs.DoneMsg[Result]:
		cmd = v.onDone(msg)
	case storedMsg:
		cmd = v.onStored(msg)
	case exportedMsg:
		v.onExported(msg)
	case tab.RefitMsg:
		cmd = v.onRefitMsg(msg)
	case tab.AnswersStoredMsg, tab.DatasetMsg:
	default:
		return nil
	}
	v.sync()
	return cmd
}

// key handles the Fit tab's own keys; while a path is asked for, the
// path's input takes them.
func (v *Tab) key(msg tea.KeyPressMsg) tea.Cmd {
	k := v.keys
	switch {
	case v.exportIn != nil:
		return v.exportKey(msg)
	case v.saveIn != nil:
		return v.saveKey(msg)
	case key.Matches(msg, k.Export):
		return v.export()
	case key.Matches(msg, k.SaveCalibrator):
		return v.saveCalibrator()
	case key.Matches(msg, k.Refit):
		return v.refit()
	case key.Matches(msg, k.Metric):
		return v.onRefitMsg(tab.RefitMsg{SwitchMetric: true})
	case key.Matches(msg, k.Taylor):
		return v.onRefitMsg(tab.RefitMsg{SwitchTaylor: true})
	}
	return nil
}

// sync tells the scroll the pane's height and its content's length.
func (v *Tab) sync() {
	st := v.svc.Styles()
	v.scroll.SetHeight(v.height - widgets.PaneChromeH - 1)
	stale, judge := v.Stale(), v.judge()
	if !v.split() {
		w := v.width - widgets.PaneChromeW
		v.scroll.SetLines(len(v.tableLines(st, stale, judge, w)) + len(v.sweepLines(st, w)))
		return
	}
	v.scroll.SetLines(len(v.tableLines(st, stale, judge, v.width-v.sweepWidth()-widgets.PaneChromeW)))
}

// onRefitMsg refits, after switching the metric or the Taylor setting
// when asked; the tabs that follow the settings hear of them.
func (v *Tab) onRefitMsg(msg tab.RefitMsg) tea.Cmd {
	if !msg.SwitchMetric && !msg.SwitchTaylor {
		return v.refit()
	}
	v.pairwise = v.pairwise != msg.SwitchMetric
	v.taylor = v.taylor != msg.SwitchTaylor
	return tab.Batch(v.refit(), v.settingsMsg())
}

// settingsMsg tells the tabs the metric and the Taylor setting.
func (v *Tab) settingsMsg() tea.Cmd {
	return tab.Send(tab.FitSettingsMsg{Metric: v.metric(), Taylor: v.taylor})
}

// refit (re)fits the current dataset, judge and bank version; a fit in
// flight is cancelled and its result dropped.
func (v *Tab) refit() tea.Cmd {
	k, err := v.svc.RequireKey()
	if err != nil {
		v.job.Err = err
		return nil
	}
	job, cmd := startFitCmd(v.svc.Context(), v.svc.Store(), k, v.Options())
	v.job.Start(job)
	ver := v.svc.Versions()
	v.fit.Answers, v.fit.Rubrics = ver.Of(k), ver.Of(k.Rubric())
	return cmd
}

// startFitCmd starts a fit of key's answers with opts (its Progress is
// the job's) and returns the job at once.
func startFitCmd(ctx context.Context, st *store.Store, key study.Key, opts calib.Options) (*jobs.Job[Result], tea.Cmd) {
	return jobs.Start(ctx, key, func(ctx context.Context, progress func(int, int)) (Result, []string, error) {
		opts.Progress = progress
		res, w, err := analysis.FitStudy(ctx, st, key, opts)
		opts.Progress = nil
		if errors.Is(err, calib.ErrNoProbes) {
			// Nothing to fit, but the judge can still be measured.
			ag, aerr := analysis.MeasureAgreement(ctx, st, key.Dataset, key.BankHash, []string{key.Judge}, opts.Metric)
			if aerr != nil {
				return Result{}, w, errors.Join(err, aerr)
			}
			return Result{agree: ag}, append(w, ag.Warnings...), nil
		}
		if err != nil {
			return Result{}, w, err
		}
		w = append(w, analysis.Remember(ctx, st, res)...)
		return Result{rep: res.Report, d: res.Design, opts: opts, source: res.Source, rows: res.Rows}, w, nil
	})
}

// onDone shows a finished fit and tells the tabs that follow it.
func (v *Tab) onDone(msg jobs.DoneMsg[Result]) tea.Cmd {
	j := msg.Job
	if !v.job.Finish(j) {
		return nil
	}
	v.res, v.warnings = j.Res, j.Warnings
	v.fit.Key, v.fit.Report, v.fit.Agree, v.fit.Stored = j.Key, j.Res.rep, j.Res.agree, nil
	v.scroll.Top()
	return tab.Send(tab.FitDoneMsg{Key: j.Key, Version: v.fit.Answers, Rubrics: v.fit.Rubrics, Report: j.Res.rep, Design: j.Res.d})
}

// Fits are remembered: every fit of the Fit tab is stored in the
// workspace (analysis.Remember), and the tab opens on the current
// study's newest stored fit instead of empty, marked stale when the
// study's answers changed since.

// storedMsg carries the newest stored fit of key's study, or nil.
type storedMsg struct {
	key    study.Key
	stored *study.Stored
	err    error
}

// Init reads the newest stored fit of the current study.
func (v *Tab) Init() tea.Cmd {
	k, ok := v.svc.Key()
	if !ok {
		return nil
	}
	st, ctx := v.svc.Store(), v.svc.Context()
	return func() tea.Msg {
		s, err := study.Latest(ctx, st, k.Dataset, k.Judge, k.BankHash)
		return storedMsg{key: k, stored: s, err: err}
	}
}

// onStored shows a stored fit when the tab has none of its own (nor one
// in flight) and it is of the current study.
func (v *Tab) onStored(msg storedMsg) tea.Cmd {
	k, ok := v.svc.Key()
	if msg.err != nil || msg.stored == nil || v.fit.Report != nil || v.job.Job != nil || !ok || k != msg.key {
		return nil
	}
	r := msg.stored.Report
	ver := v.svc.Versions()
	v.fit = analysis.Fitted{Key: msg.key, Report: r, Stored: msg.stored, Answers: ver.Of(k), Rubrics: ver.Of(k.Rubric())}
	v.res.rep, v.res.d, v.res.rows, v.res.agree = r, nil, nil, nil
	v.pairwise = r.Metric == model.MetricPairwise
	v.taylor = r.Methods.Taylor != nil
	return tab.Batch(tab.Send(tab.FitDoneMsg{Key: k, Version: v.fit.Answers, Rubrics: v.fit.Rubrics, Report: r, Stored: msg.stored}), v.settingsMsg())
}
