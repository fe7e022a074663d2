package compare

import (
	"context"
	"errors"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/agree"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// Services is what the Compare tab needs from the App: the workspace and
// the study (its dataset and bank version; its versions, to say when the
// fits are stale), the context of its work and the styles.
type Services interface {
	tab.Styles
	tab.Clock
	Store() *store.Store
	Key() (study.Key, bool)
	RequireKey() (study.Key, error)
	Versions() tab.Versions
}

// KeyMap is the Compare tab's own bindings.
type KeyMap struct{ Compare key.Binding }

// DefaultKeyMap returns the Compare tab's standard bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{Compare: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "compare judges"))}
}

// JudgeFit is one judge's fit on the Compare tab.
type JudgeFit struct {
	Judge   string
	Backend string // the stored judge's backend (store.Judge.Backend)
	Rep     *calib.Report
	Err     error
}

// Label is the judge's name as the tab shows it: a simulator's (backend
// offline) is labelled so, as the offline judge is everywhere.
func (f JudgeFit) Label() string {
	if f.Backend == offlineBackend {
		return f.Judge + " (simulator)"
	}
	return f.Judge
}

// offlineBackend is the stored backend of the offline simulator and its
// variants.
const offlineBackend = "offline"

// doneMsg carries the fits of every judge with answers, and their
// agreement with the labels (or why it could not be measured).
type doneMsg struct {
	gen      int
	fits     []JudgeFit
	agree    *analysis.Agreement
	agreeErr error
	err      error
}

// Tab is the Compare tab.
type Tab struct {
	svc    Services
	keys   KeyMap
	fits   []JudgeFit
	agree  *analysis.Agreement // every judge's agreement with the labels, or nil
	aerr   error               // why agree is nil after a comparison
	busy   bool
	err    error
	gen    int
	scroll widgets.Scroll

	settings analysis.Settings // the Fit tab's, which the next fits use
	key      study.Key         // the dataset and bank version of fits
	fitWith  analysis.Settings // the settings fits were made with
	answers  int               // the versions' total when the fits started
	rubrics  int               // the rubric studies' total when the fits started

	width, height int
}

// New is the Compare tab, before any comparison.
func New(svc Services, keys KeyMap) *Tab {
	return &Tab{svc: svc, keys: keys, settings: analysis.Settings{Metric: model.MetricSpearman}}
}

// Fits are the judges' fits of the last comparison.
func (v *Tab) Fits() []JudgeFit { return v.fits }

// Busy is whether a comparison is going; Err is why the last failed.
func (v *Tab) Busy() bool { return v.busy }
func (v *Tab) Err() error { return v.err }

// Agreement is every judge's agreement (nil before a comparison): what
// a test compares with prism agree's.
func (v *Tab) Agreement() *agree.Result {
	if v.agree == nil {
		return nil
	}
	return v.agree.Res
}

func (v *Tab) SetSize(w, h int) {
	v.width, v.height = w, h
	v.sync()
}

// sync tells the scroll the pane's height and its content's length.
func (v *Tab) sync() {
	v.scroll.SetHeight(v.height - widgets.PaneChromeH - 1)
	v.scroll.SetLines(len(v.lines(v.svc.Styles(), v.width-widgets.PaneChromeW, v.Stale())))
}

// Keys are the Compare tab's own bindings.
func (v *Tab) Keys() []key.Binding { return []key.Binding{v.keys.Compare} }

func (v *Tab) Badge() string { return "" }
func (v *Tab) Editing() bool { return false }

// Update handles the Compare tab's keys and the fits it asked for.
func (v *Tab) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.sync()
		v.scroll.Move(msg.Delta)
	case tab.FitSettingsMsg:
		v.settings = analysis.Settings{Metric: msg.Metric, Taylor: msg.Taylor}
	case tea.KeyPressMsg:
		if key.Matches(msg, v.keys.Compare) {
			cmd := v.refit()
			v.sync()
			return cmd
		}
	case doneMsg:
		if msg.gen == v.gen {
			v.busy, v.fits, v.err = false, msg.fits, msg.err
			v.agree, v.aerr = msg.agree, msg.agreeErr
			v.sync()
		}
	}
	return nil
}

// refit fits every judge with answers on the current dataset and
// bank version, with the Fit tab's settings.
func (v *Tab) refit() tea.Cmd {
	k, err := v.svc.RequireKey()
	if err != nil {
		v.err = err
		return nil
	}
	ver := v.svc.Versions()
	v.gen++
	v.busy, v.err = true, nil
	v.key, v.fitWith, v.answers = k, v.settings, ver.Total(nil)
	v.rubrics = ver.Total(study.Key.IsRubric)
	return compareCmd(v.svc.Context(), v.svc.Store(), k.Dataset, k.BankHash, analysis.FitOptions(v.settings.Metric, v.settings.Taylor), v.gen)
}

// Stale says why the fits no longer describe the study, or "" when
// they do.
func (v *Tab) Stale() string {
	k, ok := v.svc.Key()
	ver := v.svc.Versions()
	switch {
	case !ok || k.Dataset != v.key.Dataset || k.BankHash != v.key.BankHash:
		return "the dataset or bank has changed since these fits: c refits"
	case v.fitWith != v.settings:
		return "the metric or the Taylor setting has changed since these fits: c refits"
	case ver.Total(study.Key.IsRubric) != v.rubrics:
		return "new rubric ratings were stored since these fits: c refits"
	case ver.Total(nil) != v.answers:
		return "new answers were stored since these fits: c refits"
	}
	return ""
}

// compareCmd fits every judge of st with answers on dataset: under
// bankHash, or, for an imported judge (whose answers have no bank), all
// its answers. A judge without probe answers cannot be fitted
// (calib.ErrNoProbes) but is measured: every judge's agreement with the
// labels is computed together, on the same resamples
// (analysis.MeasureAgreement).
func compareCmd(ctx context.Context, st *store.Store, dataset, bankHash string, opts calib.Options, gen int) tea.Cmd {
	return func() tea.Msg {
		judges, err := st.Judges(ctx)
		if err != nil {
			return doneMsg{gen: gen, err: err}
		}
		var fits []JudgeFit
		for _, j := range judges {
			// An imported judge's answers, which have no bank, are its
			// study under any bankHash (study.Pick).
			_, _, err := study.Pick(ctx, st, dataset, j.Name, bankHash)
			if errors.Is(err, store.ErrNotFound) {
				continue // no answers of this judge here
			}
			if err != nil {
				return doneMsg{gen: gen, err: err}
			}
			var rep *calib.Report
			res, _, err := analysis.FitStudy(ctx, st, study.Key{Dataset: dataset, Judge: j.Name, BankHash: bankHash}, opts)
			if res != nil {
				rep = res.Report
			}
			fits = append(fits, JudgeFit{Judge: j.Name, Backend: j.Backend, Rep: rep, Err: err})
		}
		msg := doneMsg{gen: gen, fits: fits}
		if len(fits) > 0 {
			names := make([]string, len(fits))
			for i, f := range fits {
				names[i] = f.Judge
			}
			msg.agree, msg.agreeErr = analysis.MeasureAgreement(ctx, st, dataset, bankHash, names, opts.Metric)
		}
		return msg
	}
}

// AgreementErr is why the last comparison measured no agreement.
func (v *Tab) AgreementErr() error { return v.aerr }
