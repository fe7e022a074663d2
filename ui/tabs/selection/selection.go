package selection

import (
	"context"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib/budget"
	"github.com/prism-eval/prism/calib/selection"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/jobs"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// Services is what the Select tab needs from the App.
type Services interface {
	tab.Styles
	tab.Clock
	// Store is the open workspace, nil when none is.
	Store() *store.Store
	// Key and RequireKey are the current study (tab.Session's).
	Key() (study.Key, bool)
	RequireKey() (study.Key, error)
	// Judge names the session's judge, which the hint names when the Run
	// form has no valid judge.
	Judge() string
}

// Tab is the Select tab.
type Tab struct {
	svc  Services
	keys KeyMap

	// The selection in flight, its progress, and why the last one failed.
	sel      jobs.State[*selection.Report]
	key      study.Key // the answers rep was computed from
	rep      *selection.Report
	warnings []string

	// budget is the budget curve b shows in the left pane (budget.go).
	budget budgetState

	focusRight    bool
	scroll        widgets.Scroll // the right pane's tables
	width, height int
}

// New is the Select tab, with no selection yet.
func New(svc Services, keys KeyMap) *Tab { return &Tab{svc: svc, keys: keys} }

// Report is the last selection shown (nil before one); Selection is its
// job's state (in flight, progress, error), which tests read and set.
func (v *Tab) Report() *selection.Report                 { return v.rep }
func (v *Tab) Selection() *jobs.State[*selection.Report] { return &v.sel }

// BudgetReport is the last budget curve (nil before one), BudgetJob its
// job's state, and BudgetShown whether it replaces the subset-size curve.
func (v *Tab) BudgetReport() *budget.Report           { return v.budget.rep }
func (v *Tab) BudgetJob() *jobs.State[*budget.Report] { return &v.budget.State }
func (v *Tab) BudgetShown() bool                      { return v.budget.show }

func (v *Tab) SetSize(w, h int) {
	v.width, v.height = w, h
	v.scroll.SetHeight(v.innerHeight())
	v.syncScroll()
}

// innerHeight is the lines a pane shows.
func (v *Tab) innerHeight() int { return v.height - widgets.PaneChromeH - 1 }

// syncScroll gives the right pane's scroll the length of its tables,
// which change with the report and the width.
func (v *Tab) syncScroll() {
	v.scroll.SetLines(len(v.tableLines(v.svc.Styles(), v.rightWidth()-widgets.PaneChromeW)))
}

func (v *Tab) leftWidth() int  { return max(v.width/2, 40) }
func (v *Tab) rightWidth() int { return v.width - v.leftWidth() }

// Keys are the Select tab's own bindings.
func (v *Tab) Keys() []key.Binding { return []key.Binding{v.keys.RunSelect, v.keys.Budget} }

// Badge is the selection's progress.
func (v *Tab) Badge() string {
	if v.sel.Job != nil && v.sel.Total > 0 {
		return widgets.Percent(v.sel.Done, v.sel.Total)
	}
	return ""
}

func (v *Tab) Editing() bool { return false }

// Update handles the Select tab's keys and navigation and the messages
// of its selection and budget curve.
func (v *Tab) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.scroll.Move(msg.Delta)
	case tab.FocusMsg:
		v.focusRight = msg.Right
	case tab.ClickMsg:
		v.focusRight = msg.X >= v.leftWidth()
	case tea.KeyPressMsg:
		if key.Matches(msg, v.keys.RunSelect) {
			return v.rerun()
		}
		if key.Matches(msg, v.keys.Budget) {
			cur, _ := v.svc.Key()
			return v.budget.toggle(v.svc, cur)
		}
	case jobs.StartedMsg[*budget.Report], jobs.ProgressMsg[*budget.Report], jobs.DoneMsg[*budget.Report]:
		return v.budget.update(msg)
	case jobs.StartedMsg[*selection.Report]:
		return msg.Follow(&v.sel)
	case jobs.ProgressMsg[*selection.Report]:
		return msg.Apply(&v.sel)
	case jobs.DoneMsg[*selection.Report]:
		v.onDone(msg)
	}
	return nil
}

// rerun (re)runs the selection on the current dataset, judge and
// bank version; a selection in flight is cancelled and its result dropped.
func (v *Tab) rerun() tea.Cmd {
	k, err := v.svc.RequireKey()
	if err != nil {
		v.sel.Err = err
		return nil
	}
	j, cmd := startSelect(v.svc.Context(), v.svc.Store(), k, selection.DefaultOptions())
	v.sel.Start(j)
	return cmd
}

func (v *Tab) onDone(msg jobs.DoneMsg[*selection.Report]) {
	j := msg.Job
	if !v.sel.Finish(j) {
		return
	}
	v.rep, v.warnings, v.key = j.Res, j.Warnings, j.Key
	v.scroll.Top()
	v.syncScroll()
}

// startSelect starts a selection of key's answers with opts (its
// Progress is the job's) and returns the job at once.
func startSelect(ctx context.Context, st *store.Store, key study.Key, opts selection.Options) (*jobs.Job[*selection.Report], tea.Cmd) {
	return jobs.Start(ctx, key, func(ctx context.Context, progress func(int, int)) (*selection.Report, []string, error) {
		opts.Progress = progress
		return runSelect(ctx, st, key, opts)
	})
}

// runSelect reads the answers and labels and runs selection.Select on the
// candidates that have answers (a screen or an unfinished run scores part
// of the dataset).
func runSelect(ctx context.Context, st *store.Store, key study.Key, opts selection.Options) (*selection.Report, []string, error) {
	in, err := jobs.ReadStudy(ctx, st, key, "selecting on")
	if err != nil {
		return nil, nil, err
	}
	opts.ScoresFile, opts.LabelsFile = in.Source, in.Source
	rep, w, err := selection.Select(ctx, in.Rows, in.Labels, opts)
	if err == nil {
		rep.Study = &in.Study
	}
	return rep, append(in.Warnings, w...), err
}
