package fit

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/jobs"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// Services is what the Fit tab needs from the App.
type Services interface {
	tab.Styles
	tab.Clock
	Store() *store.Store
	Key() (study.Key, bool)
	RequireKey() (study.Key, error)
	Versions() tab.Versions
	// SessionJudge names the session's judge, which the hint names when
	// the study has no key.
	SessionJudge() string
	// CalibratorDir is where S saves calibrators by default.
	CalibratorDir() string
}

// Result is a fit's report with the design it was fitted on and the
// options of the fit (without Progress): S builds the calibrator from
// them, and Inspect reads the design while the answers are unchanged.
type Result struct {
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
	agree *analysis.Agreement
}

// Tab is the Fit tab.
type Tab struct {
	svc        Services
	keys       KeyMap
	dialogKeys tab.DialogKeys
	// The fit in flight (its progress counts outer folds, then the
	// bootstrap) and why the last fit failed.
	job jobs.State[Result]

	pairwise bool // the metric: pairwise accuracy instead of Spearman
	taylor   bool // fit the diagonal Taylor correction too
	// fit is the last fit: what it read (its key, the versions) and its
	// report, or the agreement in its place; res is the rest of it.
	fit      analysis.Fitted
	res      Result
	warnings []string

	status     string // the last export's or calibrator save's outcome
	statusErr  bool
	exportIn   *textinput.Model // the export directory asked for after e, or nil
	exportDir  string           // where e exports
	defaultDir string           // where e exports when told nothing
	saveIn     *textinput.Model // the calibrator's path asked for after S, or nil
	saveMethod calib.Method     // the method whose calibrator S saves

	scroll        widgets.Scroll
	width, height int
}

// New is the Fit tab, with no fit yet; e exports to exportDir.
func New(svc Services, keys KeyMap, dialogKeys tab.DialogKeys, exportDir string) *Tab {
	return &Tab{svc: svc, keys: keys, dialogKeys: dialogKeys, exportDir: exportDir, defaultDir: exportDir}
}

// Report is the report shown (nil before a fit): what a test compares
// with prism fit's.
func (v *Tab) Report() *calib.Report { return v.fit.Report }

// Key is the study the report was fitted on.
func (v *Tab) Key() study.Key { return v.fit.Key }

// Design is the design the report was fitted on (nil for a stored fit).
func (v *Tab) Design() *calib.Design { return v.res.d }

// Agreement is the agreement shown for a judge without probes, or nil.
func (v *Tab) Agreement() *analysis.Agreement { return v.fit.Agree }

// Warnings are the last fit's.
func (v *Tab) Warnings() []string { return v.warnings }

// Job is the fit in flight, its progress and the last fit's error.
func (v *Tab) Job() *jobs.State[Result] { return &v.job }

// Err is why the last fit failed, or nil.
func (v *Tab) Err() error { return v.job.Err }

// Status is the last export's or save's outcome, and whether it failed.
func (v *Tab) Status() (string, bool) { return v.status, v.statusErr }

// Saving is the calibrator path typed after S and the method it saves
// (ok false when none is asked for).
func (v *Tab) Saving() (path string, m calib.Method, ok bool) {
	if v.saveIn == nil {
		return "", v.saveMethod, false
	}
	return v.saveIn.Value(), v.saveMethod, true
}

// ExportDir is where e exports; SetExportDir changes it.
func (v *Tab) ExportDir() string       { return v.exportDir }
func (v *Tab) SetExportDir(dir string) { v.exportDir = dir }

func (v *Tab) SetSize(w, h int) {
	v.width, v.height = w, h
	v.sync()
}

func (v *Tab) metric() string {
	if v.pairwise {
		return model.MetricPairwise
	}
	return model.MetricSpearman
}

// Settings are the metric and the Taylor setting of the next fit.
func (v *Tab) Settings() analysis.Settings {
	return analysis.Settings{Metric: v.metric(), Taylor: v.taylor}
}

// Options are the options of the tab's fits.
func (v *Tab) Options() calib.Options { return analysis.FitOptions(v.metric(), v.taylor) }

// split reports whether the sweep gets a pane of its own.
func (v *Tab) split() bool { return v.width >= 120 }

// Stale says why the last fit no longer describes the study, or "" when
// it does.
func (v *Tab) Stale() string {
	k, ok := v.svc.Key()
	return v.fit.Stale(k, ok, v.svc.Versions(), v.Settings())
}

// judge names the judge a fit would use, for the hint.
func (v *Tab) judge() string {
	if k, ok := v.svc.Key(); ok {
		return k.Judge
	}
	return v.svc.SessionJudge()
}

// Keys are the Fit tab's own bindings.
func (v *Tab) Keys() []key.Binding {
	k := v.keys
	return []key.Binding{k.Refit, k.Metric, k.Taylor, k.Export, k.SaveCalibrator}
}

// Badge is the fit's progress ("…" until its first fold is counted).
func (v *Tab) Badge() string {
	switch {
	case v.job.Job == nil:
		return ""
	case v.job.Total > 0:
		return widgets.Percent(v.job.Done, v.job.Total)
	}
	return " …"
}

func (v *Tab) Editing() bool { return v.exportIn != nil || v.saveIn != nil }
