package run

import (
	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/ratio"
	"github.com/prism-eval/prism/ui/widgets"
)

// What the App and its tests read of the Run tab: the plan, the run, the
// live state and the form. They change it only through Update (and
// ShowLive, for a frame drawn without a run).

// Plan is the estimate's plan (nil while planning or when it failed) and
// PlanErr why it failed.
func (v *Tab) Plan() *engine.Plan { return v.plan }
func (v *Tab) PlanErr() error     { return v.planErr }

// Handle is the engine's run in flight (nil when none); RunPlan the plan
// of the current or last run.
func (v *Tab) Handle() *engine.Run          { return v.active }
func (v *Tab) RunPlan() *engine.Plan        { return v.runPlan }
func (v *Tab) Live() *Live                  { return v.live }
func (v *Tab) FormShown() bool              { return v.formShown() }
func (v *Tab) FocusRight() bool             { return v.focusRight }
func (v *Tab) Signal() (*ratio.View, error) { return v.signal, v.signalErr }

// ShowLive shows lr as the tab's run with ratio panel sig: a frame
// drawn without running (benchmarks).
func (v *Tab) ShowLive(lr *Live, sig *ratio.View) { v.live, v.signal = lr, sig }

// Field is the key of the form's field under the cursor (judge_name,
// concurrency, …), Cursor its row, Fields the keys of the fields shown.
func (v *Tab) Field() string { return v.form.fields[v.form.cursor].key }
func (v *Tab) Cursor() int   { return v.form.cursor }
func (v *Tab) Fields() []string {
	out := make([]string, len(v.form.fields))
	for i, f := range v.form.fields {
		out[i] = f.key
	}
	return out
}

// Value is the form's value of field key, also of the samples field
// while it is hidden.
func (v *Tab) Value(key string) string {
	for _, f := range v.form.fields {
		if f.key == key {
			return f.value
		}
	}
	if key == v.form.samples.key {
		return v.form.samples.value
	}
	return ""
}

// Phase is where the run is; Progress its latest progress (tests set a
// field of it to draw a state); Applied the results applied so far.
func (lr *Live) Phase() Phase               { return lr.phase }
func (lr *Live) Progress() *engine.Progress { return &lr.prog }
func (lr *Live) Applied() int               { return lr.nRecent }
func (lr *Live) Summary() *engine.Summary   { return lr.summary }
func (lr *Live) Err() error                 { return lr.err }
func (lr *Live) Stored() store.Progress     { return lr.stored }
func (lr *Live) SetPhase(p Phase)           { lr.phase = p }

// Tally is a rubric run's count of criterion name: ratings, missing
// cells and failed requests (ok false for no such criterion).
func (lr *Live) Tally(name string) (scored, missing, failed int, ok bool) {
	t := lr.crits[name]
	if t == nil {
		return 0, 0, 0, false
	}
	return t.scored, t.missing, t.failed, true
}

// Attributes are the bank's attributes in order; Deltas the Δ+ and Δ−
// histograms of one.
func (lr *Live) Attributes() []string { return lr.attrs }
func (lr *Live) Deltas(name string) (plus, minus *widgets.DeltaHist) {
	return lr.plus[name], lr.minus[name]
}

// Rubric is the rubric of a rubric study's run, nil for a bank's.
func (lr *Live) Rubric() *banks.Rubric { return lr.rubric }
