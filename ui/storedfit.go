package ui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// Fits are remembered: every fit of the Fit tab is stored in the
// workspace (study.Remember, as prism fit stores its own), and the App
// opens on the current study's newest stored fit instead of an empty Fit
// tab, marked stale when the study's answers changed since.

// storedFitMsg carries the newest stored fit of key's study, or nil.
type storedFitMsg struct {
	key    studyKey
	stored *study.Stored
	err    error
}

// loadStoredFit reads the newest stored fit of the current study.
func (a *App) loadStoredFit() tea.Cmd {
	k, ok := a.currentKey()
	if !ok {
		return nil
	}
	st, ctx := a.study.Store, a.ctx
	return func() tea.Msg {
		s, err := study.Latest(ctx, st, k.Dataset, k.Judge, k.BankHash)
		return storedFitMsg{key: k, stored: s, err: err}
	}
}

// onStoredFit shows a stored fit when the Fit tab has none of its own
// (nor one in flight) and it is of the current study.
func (v *fitTab) onStoredFit(a *App, msg storedFitMsg) {
	k, ok := a.currentKey()
	if msg.err != nil || msg.stored == nil || v.rep != nil || v.job != nil || !ok || k != msg.key {
		return
	}
	r := msg.stored.Report
	v.rep, v.key, v.d, v.rows, v.stored, v.agree = r, msg.key, nil, nil, msg.stored, nil
	v.pairwise = r.Metric == model.MetricPairwise
	v.taylor = r.Methods.Taylor != nil
	v.answers, v.rubrics = a.versions.Of(k), a.versions.Of(k.Rubric())
	a.prof.setReport(r)
}

// storedNote says where a stored fit came from, and whether the study's
// answers changed since it was fitted.
func (v *fitTab) storedNote() string {
	s := v.stored
	if s == nil {
		return ""
	}
	if s.Stale {
		return fmt.Sprintf("stored fit #%d: the study's answers changed since it was fitted: f refits", s.ID)
	}
	return fmt.Sprintf("stored fit #%d of this study, as it was left (f refits; S needs a fresh fit)", s.ID)
}

// rememberFit stores a fit the Fit tab made; a workspace that cannot be
// written loses only that, and says so.
func rememberFit(ctx context.Context, st *store.Store, res *study.FitResult) []string {
	if _, err := study.Remember(ctx, st, res.Report); err != nil {
		return []string{"the fit was not stored in the workspace: " + err.Error()}
	}
	return nil
}

// studyLines name the study a report was computed from, as the CLI's
// reports do (model.Study.Lines), wrapped to w; none for a report
// without one.
func studyLines(st *styles.Styles, s *model.Study, w int) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, l := range s.Short() {
		out = append(out, st.Muted.Render(widgets.Fit(l, w)))
	}
	return out
}

// FitReport is the report the Fit tab shows (nil before a fit): what a
// test compares with prism fit's.
func (a *App) FitReport() *calib.Report { return a.fit.rep }
