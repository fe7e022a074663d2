package inspect

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// Services is what the Inspect tab needs from the App.
type Services interface {
	tab.Styles
	tab.Clock
	Store() *store.Store
	Dataset() *model.Dataset
	Key() (study.Key, bool)
	RequireKey() (study.Key, error)
	Versions() tab.Versions
	// Selected is the Data tab's context and candidate (nil when none),
	// which the tab shows when it is opened by its key.
	Selected() (*model.Context, *model.Candidate)
	// CalibratorTerms are the lines about the loaded calibrator for
	// candidate cand of context ctx inspected on key's answers (none
	// without a calibrator).
	CalibratorTerms(st *styles.Styles, key study.Key, ctx, cand string, w int) []string
}

// lastFit is the Fit tab's last fit, whose β the inspections use when
// they read the same answers.
type lastFit struct {
	key     study.Key
	version int // of key's answers when it started
	rep     *calib.Report
	d       *calib.Design // nil for a fit read from the workspace
}

// Tab is the Inspect tab.
type Tab struct {
	svc        Services
	keys       KeyMap
	ins        *Inspection
	busy       bool
	err        error
	gen        int
	back       tab.ID // where esc returns
	fit        lastFit
	focusRight bool
	scroll     [2]widgets.Scroll // per pane

	width, height int
}

// New is the Inspect tab, inspecting nothing yet.
func New(svc Services, keys KeyMap) *Tab { return &Tab{svc: svc, keys: keys} }

var _ tab.Shower = (*Tab)(nil)

// Inspection is the candidate shown (nil before one is); Busy says one
// is being read, Err why the last failed.
func (v *Tab) Inspection() *Inspection { return v.ins }
func (v *Tab) Busy() bool              { return v.busy }
func (v *Tab) Err() error              { return v.err }

func (v *Tab) SetSize(w, h int) {
	v.width, v.height = w, h
	v.sync()
}

func (v *Tab) split() bool { return v.width >= 120 }

// Keys are the Inspect tab's own bindings.
func (v *Tab) Keys() []key.Binding {
	k := v.keys
	return []key.Binding{k.Back, k.NextCand, k.Refit}
}

func (v *Tab) Badge() string { return "" }
func (v *Tab) Editing() bool { return false }

// Update handles the Inspect tab's keys and navigation, the candidates
// it is asked to inspect, the Fit tab's fits and its inspections.
func (v *Tab) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.sync()
		v.move(msg.Delta)
		return nil
	case tab.FocusMsg:
		v.focusRight = msg.Right
		return nil
	case tea.KeyPressMsg:
		cmd = v.key(msg)
	case tab.InspectMsg:
		cmd = v.open(msg)
	case tab.FitDoneMsg:
		cmd = v.onFit(msg)
	case doneMsg:
		if msg.gen != v.gen {
			return nil
		}
		v.busy, v.ins, v.err = false, msg.ins, msg.err
	case tab.AnswersStoredMsg:
	default:
		return nil
	}
	v.sync()
	return cmd
}

func (v *Tab) key(msg tea.KeyPressMsg) tea.Cmd {
	k := v.keys
	switch {
	case key.Matches(msg, k.Back):
		return tab.Send(tab.OpenMsg{Tab: v.back})
	case key.Matches(msg, k.Refit):
		return tab.Send(tab.RefitMsg{})
	case key.Matches(msg, k.NextCand):
		return v.step(1)
	case key.Matches(msg, k.PrevCand):
		return v.step(-1)
	}
	return nil
}

// move scrolls the focused pane.
func (v *Tab) move(delta int) {
	i := 0
	if v.focusRight && v.split() {
		i = 1
	}
	v.scroll[i].Move(delta)
}

// sync tells the panes' scrolls their height and their content's length.
func (v *Tab) sync() {
	st := v.svc.Styles()
	stale := v.Stale()
	innerH := v.height - widgets.PaneChromeH - 1
	for i := range v.scroll {
		v.scroll[i].SetHeight(innerH)
	}
	if !v.split() {
		w := v.width - widgets.PaneChromeW
		v.scroll[0].SetLines(len(v.numberLines(st, stale, w)) + 1 + len(v.textLines(st, w)))
		return
	}
	lw := v.width / 2
	v.scroll[0].SetLines(len(v.textLines(st, lw-widgets.PaneChromeW)))
	v.scroll[1].SetLines(len(v.numberLines(st, stale, v.width-lw-widgets.PaneChromeW)))
}

// open inspects the candidate msg names, with the last fit's β when it
// was computed on the same answers; esc returns to msg.Back.
func (v *Tab) open(msg tab.InspectMsg) tea.Cmd {
	c, cand := v.svc.Dataset().Find(msg.Context, msg.Candidate)
	if cand == nil {
		return nil
	}
	return tab.Batch(tab.Send(tab.OpenMsg{Tab: tab.Inspect}), v.openCand(c, cand, msg.Back))
}

// openCand inspects cand of c from the top, esc returning to back.
func (v *Tab) openCand(c *model.Context, cand *model.Candidate, back tab.ID) tea.Cmd {
	v.back, v.scroll, v.ins = back, [2]widgets.Scroll{}, nil
	k, err := v.svc.RequireKey()
	if err != nil {
		v.err = err
		return nil
	}
	return v.inspectOn(k, c, cand)
}

// Shown follows the Data tab when the tab is opened by its key (7, tab):
// it inspects the Data tab's candidate, or the dataset's first when none
// is selected, unless that one is shown or being read already (as when
// enter on a candidate opened the tab). esc then returns to the Data tab.
func (v *Tab) Shown() tea.Cmd {
	if v.busy {
		return nil
	}
	c, cand := v.svc.Selected()
	if cand == nil {
		c, cand = firstCandidate(v.svc.Dataset())
	}
	if cand == nil || (v.ins != nil && v.ins.Context == c.ID && v.ins.Cand == cand.ID) {
		return nil
	}
	cmd := v.openCand(c, cand, tab.Data)
	v.sync()
	return cmd
}

// firstCandidate is the first candidate of ds's first context that has
// one, or nils.
func firstCandidate(ds *model.Dataset) (*model.Context, *model.Candidate) {
	if ds == nil {
		return nil, nil
	}
	for i := range ds.Contexts {
		if c := &ds.Contexts[i]; len(c.Candidates) > 0 {
			return c, &c.Candidates[0]
		}
	}
	return nil, nil
}

// step inspects the candidate delta rows away from the inspected one in
// its context (the Data tab follows: tab.InspectMsg); at either end it
// stays.
func (v *Tab) step(delta int) tea.Cmd {
	ins := v.ins
	if ins == nil {
		return nil
	}
	c, cand := v.svc.Dataset().Find(ins.Context, ins.Cand)
	if cand == nil {
		return nil
	}
	i := 0
	for i < len(c.Candidates) && c.Candidates[i].ID != cand.ID {
		i++
	}
	next := min(max(i+delta, 0), len(c.Candidates)-1)
	if next == i {
		return nil
	}
	return tab.Send(tab.InspectMsg{Context: c.ID, Candidate: c.Candidates[next].ID, Back: v.back})
}

// onFit keeps the Fit tab's new fit and, when a candidate is shown,
// inspects it again on the fit's answers, keeping the scroll: a view
// never keeps showing another fit's numbers, whatever study it
// inspected before. A fit read from the workspace, or an agreement
// without a fit, is not followed.
func (v *Tab) onFit(msg tab.FitDoneMsg) tea.Cmd {
	v.fit = lastFit{key: msg.Key, version: msg.Version, rep: msg.Report, d: msg.Design}
	if msg.Report == nil || msg.Stored != nil || v.ins == nil {
		return nil
	}
	c, cand := v.svc.Dataset().Find(v.ins.Context, v.ins.Cand)
	if cand == nil {
		return nil
	}
	return v.inspectOn(msg.Key, c, cand)
}

// inspectOn inspects cand of c on key's answers, with the Fit tab's
// report for β when it was computed from the same answers.
func (v *Tab) inspectOn(k study.Key, c *model.Context, cand *model.Candidate) tea.Cmd {
	var rep *calib.Report
	var d *calib.Design
	now := v.svc.Versions().Of(k)
	if v.fit.rep != nil && v.fit.key == k {
		rep = v.fit.rep
		if v.fit.version == now {
			d = v.fit.d // the answers have not changed since the fit read them
		}
	}
	v.gen++
	v.busy, v.err = true, nil
	return inspectCmd(v.svc.Context(), v.svc.Store(), k, now, c, cand, rep, d, v.gen)
}

// Stale says why the candidate shown no longer shows the study's answers
// and fit, or "" when it does: the study (dataset, judge, bank version)
// changed, answers were stored since, or a fit of its answers exists
// that the inspection does not show.
func (v *Tab) Stale() string {
	ins := v.ins
	if ins == nil || v.busy {
		return ""
	}
	k, ok := v.svc.Key()
	switch {
	case !ok || k != ins.Key:
		return fmt.Sprintf("the study is now judge %s, bank %s, dataset %s: f fits it and shows it here",
			k.Judge, widgets.ShortHash(k.BankHash), k.Dataset)
	case v.svc.Versions().Of(k) != ins.Answers:
		return "new answers were stored since: f refits and shows them here"
	case !ins.Fitted && v.fit.rep != nil && v.fit.key == k:
		return "a fit of these answers exists: f shows its correction here"
	}
	return ""
}
