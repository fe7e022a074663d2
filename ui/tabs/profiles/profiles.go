package profiles

import (
	"cmp"
	"math"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/tab"
)

// Services is what the Profiles tab needs from the App: its styles, and
// the study and its versions, to say when the fit shown is stale.
type Services interface {
	tab.Styles
	Key() (study.Key, bool)
	Versions() tab.Versions
}

// Tab is the Profiles tab.
type Tab struct {
	svc         Services
	keys        KeyMap
	fit         analysis.Fitted   // the Fit tab's last fit
	settings    analysis.Settings // the Fit tab's
	attrs       []string          // in display order
	byMagnitude bool              // sort by |mean a_k| + |mean e_k|, largest first
	cursor      int

	width, height int
}

// New is the Profiles tab, with no fit yet.
func New(svc Services, keys KeyMap) *Tab {
	return &Tab{svc: svc, keys: keys, settings: analysis.Settings{Metric: model.MetricSpearman}}
}

func (v *Tab) SetSize(w, h int) { v.width, v.height = w, h }

// Move moves the cursor.
func (v *Tab) Move(delta int) {
	v.cursor = min(max(v.cursor+delta, 0), max(len(v.attrs)-1, 0))
}

// Report is the report shown (nil before a fit).
func (v *Tab) Report() *calib.Report { return v.fit.Report }

// Attrs are the attributes in display order.
func (v *Tab) Attrs() []string { return v.attrs }

// Select moves the cursor to the i-th attribute.
func (v *Tab) Select(i int) { v.Move(i - v.cursor) }

// setReport shows a new report, keeping the sort.
func (v *Tab) setReport(r *calib.Report) {
	v.attrs = v.attrs[:0]
	if r == nil { // no fit (a judge without probes): nothing to profile
		return
	}
	for a := range r.Profiles {
		v.attrs = append(v.attrs, a)
	}
	v.order()
}

// order sorts the attributes by name, or by magnitude (ties by name).
func (v *Tab) order() {
	slices.Sort(v.attrs)
	if r := v.fit.Report; v.byMagnitude && r != nil {
		mag := func(a string) float64 {
			p := r.Profiles[a]
			return math.Abs(p.A.Mean) + math.Abs(p.E.Mean)
		}
		slices.SortStableFunc(v.attrs, func(x, y string) int { return cmp.Compare(mag(y), mag(x)) })
	}
	v.Move(0)
}

// Selected is the attribute under the cursor, or "".
func (v *Tab) Selected() string {
	if v.cursor < len(v.attrs) {
		return v.attrs[v.cursor]
	}
	return ""
}

// Keys are the Profiles tab's own bindings.
func (v *Tab) Keys() []key.Binding {
	k := v.keys
	return []key.Binding{k.Refit, k.Metric, k.Sort}
}

func (v *Tab) Badge() string { return "" }
func (v *Tab) Editing() bool { return false }

// Update handles the Profiles tab's keys, the Fit tab's fits and its
// settings.
func (v *Tab) Update(msg tea.Msg) tea.Cmd {
	k := v.keys
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.Move(msg.Delta)
	case tab.FitDoneMsg:
		v.fit = analysis.Fitted{Key: msg.Key, Answers: msg.Version, Rubrics: msg.Rubrics, Report: msg.Report, Stored: msg.Stored}
		v.setReport(msg.Report)
	case tab.FitSettingsMsg:
		v.settings = analysis.Settings{Metric: msg.Metric, Taylor: msg.Taylor}
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Sort):
			v.byMagnitude = !v.byMagnitude
			v.order()
		case key.Matches(msg, k.Refit):
			return tab.Send(tab.RefitMsg{})
		case key.Matches(msg, k.Metric):
			return tab.Send(tab.RefitMsg{SwitchMetric: true})
		case key.Matches(msg, k.Taylor):
			return tab.Send(tab.RefitMsg{SwitchTaylor: true})
		}
	}
	return nil
}
