package ui

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/prism-eval/prism/calib/signal"

	"github.com/prism-eval/prism/calib/forest"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/figures"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// The Fit tab's control: calib.Fit (docs/protocol.md §2–7) on the stored
// answers of the current dataset, judge and bank version, as a job whose
// progress counts the outer folds and the bootstrap.

// fitJob is one fit in flight.
type fitJob = job[fitResult]

// fitResult is a fit's report with the design it was fitted on and the
// options of the fit (without Progress): the Fit tab's S builds the
// calibrator from them, and Inspect reads the design while the answers
// are unchanged.
type fitResult struct {
	rep  *calib.Report
	d    *calib.Design
	opts calib.Options
	// source names the study; rows are the rubric rows and one baseline
	// row a run (study.FitResult.Rows), what a calibrator's provenance
	// reads.
	source string
	rows   []model.ScoreRow
	// agree is the judge's agreement with the labels when its study has
	// no probe answers (calib.ErrNoProbes): shown in place of the fit.
	agree *agreement
}

// fitOptions are the options of the Fit tab's fits: the protocol's
// defaults, as `prism fit`, with the tab's metric and, when taylor,
// the diagonal Taylor correction (`prism fit --taylor`).
func fitOptions(metric string, taylor bool) calib.Options {
	opts := calib.DefaultOptions()
	opts.Metric, opts.Taylor = metric, taylor
	return opts
}

// startFitCmd starts a fit of key's answers with opts (its Progress is
// the job's) and returns the job at once.
func startFitCmd(ctx context.Context, st *store.Store, key studyKey, opts calib.Options) (*fitJob, tea.Cmd) {
	return startJob(ctx, key, func(ctx context.Context, progress func(int, int)) (fitResult, []string, error) {
		opts.Progress = progress
		res, w, err := fitStudy(ctx, st, key, opts)
		opts.Progress = nil
		if errors.Is(err, calib.ErrNoProbes) {
			// Nothing to fit, but the judge can still be measured.
			ag, aerr := measureAgreement(ctx, st, key.Dataset, key.BankHash, []string{key.Judge}, opts.Metric)
			if aerr != nil {
				return fitResult{}, w, errors.Join(err, aerr)
			}
			return fitResult{agree: ag}, append(w, ag.warnings...), nil
		}
		if err != nil {
			return fitResult{}, w, err
		}
		w = append(w, rememberFit(ctx, st, res)...)
		return fitResult{rep: res.Report, d: res.Design, opts: opts, source: res.Source, rows: res.Rows}, w, nil
	})
}

// fitStudy fits key's study with study.Fit, the call prism fit makes:
// its planned runs, the judge's rubric ratings scored beside the methods
// as the report's baselines (SAJA with the forest head, as `prism fit`;
// ratings that cannot be scored are left out with a warning), and the
// design kept whole for a calibrator and for Inspect.
func fitStudy(ctx context.Context, st *store.Store, key studyKey, opts calib.Options) (*study.FitResult, []string, error) {
	info, err := pickStudy(ctx, st, key)
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

// pickStudy is key's study (study.Pick under key's bank), or why there is
// none in words the TUI's user can act on.
func pickStudy(ctx context.Context, st *store.Store, key studyKey) (store.StudyInfo, error) {
	info, _, err := study.Pick(ctx, st, key.Dataset, key.Judge, key.BankHash)
	if errors.Is(err, store.ErrNotFound) {
		return info, fmt.Errorf("judge %s has no answers for bank %s on dataset %s: screen the bank (Bank tab, s) or run it (Run tab, s) first",
			key.Judge, shortHash(key.BankHash), key.Dataset)
	}
	return info, err
}

// studyInput is what a selection or a budget curve reads of a study.
type studyInput struct {
	rows     []model.ScoreRow
	labels   []model.Label // of the candidates with answers
	warnings []string
	source   string // names the workspace, dataset, judge and bank in reports
	study    model.Study
}

// readStudyInput reads key's study (its planned runs) and the labels of
// the candidates that have answers; doing ("selecting on", "evaluating
// budgets on") words the warning about the others.
func readStudyInput(ctx context.Context, st *store.Store, key studyKey, doing string) (studyInput, error) {
	info, err := pickStudy(ctx, st, key)
	if err != nil {
		return studyInput{}, err
	}
	d, err := study.Read(ctx, st, info, study.Runs{})
	if err != nil {
		return studyInput{}, err
	}
	in := studyInput{rows: d.Rows, source: study.Source(st.Path(), info), study: d.Study}
	var dropped int
	in.labels, dropped = model.ScoredLabels(d.Rows, d.Labels)
	if dropped > 0 {
		in.warnings = append(in.warnings, fmt.Sprintf("%d labelled candidates have no answers; %s the %d that do", dropped, doing, len(in.labels)))
	}
	return in, nil
}

// refit (re)fits the current dataset, judge and bank version; a fit in
// flight is cancelled and its result dropped.
func (v *fitTab) refit(a *App) tea.Cmd {
	k, err := a.requireKey()
	if err != nil {
		v.err = err
		return nil
	}
	job, cmd := startFitCmd(a.ctx, a.study.Store, k, v.options())
	v.start(job)
	v.answers = a.versions.Of(k)
	v.rubrics = a.versions.Of(k.Rubric())
	return cmd
}

func (v *fitTab) onDone(a *App, msg jobDoneMsg[fitResult]) tea.Cmd {
	j := msg.job
	if !v.finish(j) {
		return nil
	}
	v.rep, v.warnings, v.key, v.scroll, v.stored = j.res.rep, j.warnings, j.key, 0, nil
	v.source, v.rows = j.res.source, j.res.rows
	v.d, v.fitOpts = j.res.d, j.res.opts
	v.agree = j.res.agree
	a.prof.setReport(j.res.rep)
	if v.agree != nil {
		return nil // no fit: nothing for Inspect to follow
	}
	if a.insp.ins != nil {
		// Inspect follows the newest fit, whatever study it inspected
		// before: a view never keeps showing another fit's numbers.
		return a.insp.reinspect(a, j.key)
	}
	return nil
}

// reinspect inspects the Inspect tab's candidate again on key's
// answers, keeping the tab's scroll.
func (v *inspectTab) reinspect(a *App, key studyKey) tea.Cmd {
	c, cand := a.study.Dataset.Find(v.ins.context, v.ins.cand)
	if cand == nil {
		return nil
	}
	return v.inspectOn(a, key, c, cand)
}

// inspectOn inspects cand of c on key's answers, with the Fit tab's
// report for β when it was computed from the same answers.
func (v *inspectTab) inspectOn(a *App, k studyKey, c *model.Context, cand *model.Candidate) tea.Cmd {
	var rep *calib.Report
	var d *calib.Design
	if a.fit.rep != nil && a.fit.key == k {
		rep = a.fit.rep
		if a.fit.answers == a.versions.Of(k) {
			d = a.fit.d // the answers have not changed since the fit read them
		}
	}
	v.gen++
	v.busy, v.err = true, nil
	return inspectCmd(a.ctx, a.study.Store, k, a.versions.Of(k), c, cand, rep, d, v.gen)
}

// inspectStale says why the Inspect tab's candidate no longer shows
// the study's answers and fit, or "" when it does: the study (dataset,
// judge, bank version) changed, answers were stored since, or a fit of
// its answers exists that the inspection does not show.
func (a *App) inspectStale() string {
	ins := a.insp.ins
	if ins == nil || a.insp.busy {
		return ""
	}
	k, ok := a.currentKey()
	switch {
	case !ok || k != ins.key:
		return fmt.Sprintf("the study is now judge %s, bank %s, dataset %s: f fits it and shows it here",
			k.Judge, shortHash(k.BankHash), k.Dataset)
	case a.versions.Of(k) != ins.answers:
		return "new answers were stored since: f refits and shows them here"
	case !ins.fitted && a.fit.rep != nil && a.fit.key == k:
		return "a fit of these answers exists: f shows its correction here"
	}
	return ""
}

// fitStale says why the last fit no longer describes the study (the
// Fit and Profiles tabs show it), or "" when it does.
func (a *App) fitStale() string {
	v := &a.fit
	if v.rep == nil && v.agree != nil {
		return a.agreeStale()
	}
	if v.rep == nil {
		return ""
	}
	k, ok := a.currentKey()
	switch {
	case !ok || k.Dataset != v.key.Dataset:
		return "the dataset has changed since this fit: f refits"
	case k.Judge != v.key.Judge:
		return fmt.Sprintf("this fit is of judge %s; the Run tab now names %s: f refits", v.key.Judge, k.Judge)
	case k.BankHash != v.key.BankHash:
		return fmt.Sprintf("the bank has changed since this fit (%s, now %s): f refits", shortHash(v.key.BankHash), shortHash(k.BankHash))
	case v.rep.Metric != v.metric():
		return "the metric has changed since this fit: f refits"
	case (v.rep.Methods.Taylor != nil) != v.taylor:
		return "the Taylor setting has changed since this fit: f refits"
	case a.versions.Of(k) != v.answers:
		return "new answers were stored since this fit: f refits"
	case a.versions.Of(k.Rubric()) != v.rubrics:
		return "new rubric ratings were stored since this fit: f refits (Table 2)"
	}
	return v.storedNote()
}

// compareStale says why the Compare tab's fits no longer describe the
// study, or "" when they do.
func (a *App) compareStale() string {
	v := &a.cmp
	k, ok := a.currentKey()
	switch {
	case !ok || k.Dataset != v.key.Dataset || k.BankHash != v.key.BankHash:
		return "the dataset or bank has changed since these fits: c refits"
	case v.metric != a.fit.metric() || v.taylor != a.fit.taylor:
		return "the metric or the Taylor setting has changed since these fits: c refits"
	case a.versions.Total(study.Key.IsRubric) != v.rubrics:
		return "new rubric ratings were stored since these fits: c refits"
	case a.versions.Total(nil) != v.answers:
		return "new answers were stored since these fits: c refits"
	}
	return ""
}

// Keys are the Fit tab's own bindings.
func (v *fitTab) Keys(a *App) []key.Binding {
	k := a.keys
	return []key.Binding{k.Refit, k.Metric, k.Taylor, k.Export, k.SaveCalibrator}
}

// Badge is the fit's progress ("…" until its first fold is counted).
func (v *fitTab) Badge(*App) string {
	switch {
	case v.job == nil:
		return ""
	case v.total > 0:
		return widgets.Percent(v.done, v.total)
	}
	return " …"
}

func (v *fitTab) Editing() bool { return v.exportIn != nil || v.saveIn != nil }

// Update handles the Fit tab's keys and navigation and the messages
// of its fit and export.
func (v *fitTab) Update(a *App, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.Move(msg.Delta)
	case tea.KeyPressMsg:
		switch {
		case v.exportIn != nil:
			return v.exportKey(a, msg)
		case v.saveIn != nil:
			return v.saveKey(a, msg)
		case key.Matches(msg, a.keys.Export):
			return v.export(a)
		case key.Matches(msg, a.keys.SaveCalibrator):
			return v.saveCalibrator(a)
		}
		return v.optionKey(a, msg)
	case tea.PasteMsg:
		for _, in := range []*textinput.Model{v.exportIn, v.saveIn} {
			if in != nil {
				next, cmd := in.Update(msg)
				*in = next
				return cmd
			}
		}
	case calSavedMsg:
		v.onCalSaved(a, msg)
	case jobStartedMsg[fitResult]:
		return msg.follow(&v.jobState)
	case jobProgressMsg[fitResult]:
		return msg.apply(&v.jobState)
	case jobDoneMsg[fitResult]:
		return v.onDone(a, msg)
	case storedFitMsg:
		v.onStoredFit(a, msg)
	case exportedMsg:
		v.onExported(a, msg)
	}
	return nil
}

// optionKey handles the keys the Fit and Profiles tabs share: f
// refits, m and t change the metric and the Taylor setting and refit.
func (v *fitTab) optionKey(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	switch {
	case key.Matches(msg, k.Refit):
		return v.refit(a)
	case key.Matches(msg, k.Metric):
		v.pairwise = !v.pairwise
		return v.refit(a)
	case key.Matches(msg, k.Taylor):
		v.taylor = !v.taylor
		return v.refit(a)
	}
	return nil
}

// open opens the Inspect tab on the Data tab's selected
// candidate, with the last fit's β when it was computed on the same
// answers; esc returns to from.
func (v *inspectTab) open(a *App, from tab.ID) tea.Cmd {
	c, cand := a.data.Context(), a.data.Candidate()
	if cand == nil {
		return nil
	}
	v.back, v.scroll, v.ins = from, [2]int{}, nil
	a.tab = tab.Inspect
	k, err := a.requireKey()
	if err != nil {
		v.err = err
		return nil
	}
	return v.inspectOn(a, k, c, cand)
}

// step inspects the candidate delta rows away from the inspected
// one in its context (the Data tab follows); at either end it stays.
func (v *inspectTab) step(a *App, delta int) tea.Cmd {
	ins := v.ins
	if ins == nil || !a.data.SelectCandidate(ins.context, ins.cand) {
		return nil
	}
	if !a.data.StepCandidate(delta) {
		return nil
	}
	return v.open(a, v.back)
}

// exportedMsg reports an export of the Fit tab's report.
type exportedMsg struct {
	paths  []string
	err    error
	sigErr error // why the signal figure was left out, shown with the result
}

// exportCmd writes rep, and the signal diagnostics of key's stored
// answers, as files for a paper into dir (package figures).
func exportCmd(ctx context.Context, st *store.Store, key studyKey, rep *calib.Report, dir string) tea.Cmd {
	return func() tea.Msg {
		var sig *signal.Report
		rows, sigErr := st.Scores(ctx, key.Dataset, key.Judge, key.BankHash)
		if sigErr == nil && len(rows) > 0 {
			// Without neutral answers there is no ratio: the figure is left out.
			sig, sigErr = signal.Signal(ctx, rows, signal.Options{Bootstrap: finalResamples, Seed: 42})
		}
		paths, err := figures.Export(dir, rep, sig)
		if err == nil && len(rep.Baselines) > 0 {
			var p string
			p, err = writeTable2(dir, rep)
			if err == nil {
				paths = append(paths, p)
			}
		}
		return exportedMsg{paths: paths, err: err, sigErr: sigErr}
	}
}

// table2File is the export's Table 2, written when the report has
// rubric baselines.
const table2File = "table2.csv"

// writeTable2 writes rep's Table 2 (table2CSV) as table2.csv into dir.
func writeTable2(dir string, rep *calib.Report) (string, error) {
	p := filepath.Join(dir, table2File)
	err := model.WriteFileAtomic(p, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.WriteAll(table2CSV(rep)); err != nil {
			return err
		}
		return cw.Error()
	})
	if err != nil {
		return p, fmt.Errorf("%s: %w", p, err)
	}
	return p, nil
}

// exportDirName is the directory exports go to by default, beside the
// workspace's file.
const exportDirName = "prism-figures"

// defaultExportDir is where the Fit tab exports unless told otherwise:
// beside the workspace's file, or in the current directory for the demo
// (whose workspace is a temporary directory removed at exit) or without
// a workspace.
func defaultExportDir(s Session) string {
	if s.Store == nil || s.Demo || s.Store.Path() == "" {
		return exportDirName
	}
	return filepath.Join(filepath.Dir(s.Store.Path()), exportDirName)
}

// export asks where to export the last fit, if there is one: a one-line
// input holding the last directory (enter exports there, esc does not).
func (v *fitTab) export(a *App) tea.Cmd {
	if v.rep == nil {
		v.status, v.statusErr = "nothing to export yet: f fits first", true
		return nil
	}
	in := newFieldInput()
	in.SetValue(a.exportDir)
	in.CursorEnd()
	in.SetWidth(max(v.width-len(exportPrompt)-widgets.PaneChromeW-1, 10))
	v.exportIn = &in
	v.status, v.statusErr = "", false
	return in.Focus()
}

// exportPrompt labels the export directory's input.
const exportPrompt = "export to: "

// exportKey handles a key while the export directory is asked for.
func (v *fitTab) exportKey(a *App, msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "ctrl+c":
		v.exportIn = nil
		return a.quit()
	case "esc":
		v.exportIn = nil
		v.status, v.statusErr = "export canceled", false
		return nil
	case "enter":
		dir := strings.TrimSpace(v.exportIn.Value())
		v.exportIn = nil
		if dir == "" {
			dir = defaultExportDir(a.study)
		}
		a.exportDir = dir
		v.status, v.statusErr = "exporting to "+dir+"…", false
		return exportCmd(a.ctx, a.study.Store, v.key, v.rep, dir)
	}
	in, cmd := v.exportIn.Update(msg)
	*v.exportIn = in
	return cmd
}

// exportLines is the export directory's input and how to answer it, or
// nothing when it is not asked for.
func (v *fitTab) exportLines(st *styles.Styles, w int) []string {
	if v.exportIn == nil {
		return nil
	}
	return []string{
		widgets.Fit(st.Title.Render(exportPrompt)+v.exportIn.View(), w),
		st.Muted.Render(widgets.Fit("enter exports the report and figures there · esc cancels", w)),
	}
}

func (v *fitTab) onExported(a *App, msg exportedMsg) {
	if msg.err != nil {
		v.status, v.statusErr = "export: "+msg.err.Error(), true
		return
	}
	what := "report JSON, CSV, figures PNG, SVG"
	if slices.ContainsFunc(msg.paths, func(p string) bool { return filepath.Base(p) == table2File }) {
		what = "report JSON, CSV, Table 2 CSV, figures PNG, SVG"
	}
	v.status, v.statusErr = fmt.Sprintf("exported %d files (%s) to %s", len(msg.paths), what, a.exportDir), false
	if msg.sigErr != nil {
		v.status += "; no signal figure: " + msg.sigErr.Error()
	}
}

// refit fits every judge with answers on the current dataset and
// bank version, with the Fit tab's metric.
func (v *compareTab) refit(a *App) tea.Cmd {
	k, err := a.requireKey()
	if err != nil {
		v.err = err
		return nil
	}
	v.gen++
	v.busy, v.err = true, nil
	v.key, v.metric, v.taylor, v.answers = k, a.fit.metric(), a.fit.taylor, a.versions.Total(nil)
	v.rubrics = a.versions.Total(study.Key.IsRubric)
	return compareCmd(a.ctx, a.study.Store, k.Dataset, k.BankHash, a.fit.options(), v.gen)
}
