package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// dataTab is the Data tab: contexts on the left, the selected
// context's candidates, the chosen candidate's text and the source on the
// right.
type dataTab struct {
	ds         *model.Dataset
	contexts   widgets.List
	candidates widgets.List
	focusRight bool
	status     string // the last import or dataset switch
	statusErr  bool
	loadIn     *textinput.Model // the calibrator path asked for after L, or nil
	// cal is the loaded calibrator applied to this dataset, whose scores
	// the candidate rows show, or nil (App.cal holds it).
	cal           *calApplication
	width, height int
}

func newDataTab(ds *model.Dataset) dataTab {
	v := dataTab{ds: ds}
	rows := make([]string, len(ds.Contexts))
	for i, c := range ds.Contexts {
		rows[i] = fmt.Sprintf("%-s (%d)", c.ID, len(c.Candidates))
	}
	v.contexts.SetRows(rows)
	v.syncCandidates()
	return v
}

// Context is the selected context (nil for an empty dataset).
func (v *dataTab) Context() *model.Context {
	if len(v.ds.Contexts) == 0 {
		return nil
	}
	return &v.ds.Contexts[v.contexts.Cursor()]
}

// Candidate is the selected candidate (nil when there is none).
func (v *dataTab) Candidate() *model.Candidate {
	c := v.Context()
	if c == nil || len(c.Candidates) == 0 {
		return nil
	}
	return &c.Candidates[v.candidates.Cursor()]
}

// SelectCandidate moves the cursors to candidate cand of context ctx and
// reports whether the dataset has it.
func (v *dataTab) SelectCandidate(ctx, cand string) bool {
	ci, ki := v.ds.Locate(ctx, cand)
	if ki < 0 {
		return false
	}
	v.contexts.Select(ci)
	v.syncCandidates()
	v.candidates.Select(ki)
	return true
}

func (v *dataTab) syncCandidates() {
	c := v.Context()
	if c == nil {
		v.candidates.SetRows(nil)
		return
	}
	rows := make([]string, len(c.Candidates))
	for i, cand := range c.Candidates {
		text := strings.Join(strings.Fields(cand.Text), " ")
		if v.cal != nil {
			rows[i] = fmt.Sprintf("%-6s %5.2f %s %s", cand.ID, cand.Human, calRowText(v.cal.row(c.ID, cand.ID)), text)
			continue
		}
		rows[i] = fmt.Sprintf("%-6s %5.2f  %s", cand.ID, cand.Human, text)
	}
	v.candidates.SetRows(rows)
}

// setCalibrated shows p's scores beside the candidates (nil: none).
func (v *dataTab) setCalibrated(p *calApplication) {
	if p != nil && p.scored == nil {
		p = nil
	}
	v.cal = p
	v.syncCandidates()
}

func (v *dataTab) leftWidth() int { return max(v.width/3, 20) }

func (v *dataTab) SetSize(w, h int) {
	v.width, v.height = w, h
	v.contexts.SetSize(v.leftWidth()-widgets.PaneChromeW, h-widgets.PaneChromeH-2) // a line for the status
	v.candidates.SetSize(w-v.leftWidth()-widgets.PaneChromeW, v.candListHeight())
}

// The right pane gives the candidate list about a third of its height.
func (v *dataTab) candListHeight() int { return max((v.height-widgets.PaneChromeH-1)/3, 3) }

// Move moves the cursor of the focused list.
func (v *dataTab) Move(delta int) {
	if v.focusRight {
		v.candidates.Move(delta)
		return
	}
	before := v.contexts.Cursor()
	v.contexts.Move(delta)
	if v.contexts.Cursor() != before {
		v.candidates.Select(0)
		v.syncCandidates()
	}
}

func (v *dataTab) Focus(right bool) { v.focusRight = right }

// Click selects the row under a click at (x, y), relative to the view.
func (v *dataTab) Click(x, y int) {
	row := y - 2 // border and title
	if x < v.leftWidth() {
		v.focusRight = false
		if i := v.contexts.RowAt(row); i >= 0 {
			v.Move(i - v.contexts.Cursor())
		}
		return
	}
	v.focusRight = true
	if i := v.candidates.RowAt(row); i >= 0 {
		v.candidates.Select(i)
	}
}

// Keys are the Data tab's own bindings.
func (v *dataTab) Keys(a *App) []key.Binding {
	k := a.keys
	return []key.Binding{k.Inspect, k.Import, k.PickDataset, k.LoadCalibrator}
}

func (v *dataTab) Badge(*App) string { return "" }
func (v *dataTab) Editing() bool     { return v.loadIn != nil }

// Update handles the Data tab's keys and navigation; its messages
// (datasets listed and read) change the study and are the App's.
func (v *dataTab) Update(a *App, msg tea.Msg) tea.Cmd {
	k := a.keys
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.Move(msg.Delta)
	case tab.FocusMsg:
		v.Focus(msg.Right)
	case tab.ClickMsg:
		v.Click(msg.X, msg.Y)
	case tea.PasteMsg:
		if v.loadIn != nil {
			in, cmd := v.loadIn.Update(msg)
			*v.loadIn = in
			return cmd
		}
	case calLoadedMsg:
		return a.onCalLoaded(msg)
	case calAppliedMsg:
		a.onCalApplied(msg)
	case tea.KeyPressMsg:
		if v.loadIn != nil {
			return v.loadKey(a, msg)
		}
		switch {
		case key.Matches(msg, k.LoadCalibrator):
			return v.loadCalibrator(a)
		case key.Matches(msg, k.Inspect):
			return a.insp.open(a, tab.Data)
		case key.Matches(msg, k.Import):
			if a.study.Store == nil {
				v.status, v.statusErr = errNoWorkspace.Error(), true
				return nil
			}
			im := newImporter(a.importDir, a.height)
			a.modal = im
			return im.Init()
		case key.Matches(msg, k.PickDataset):
			if a.study.Store == nil {
				return nil
			}
			return listDatasetsCmd(a.ctx, a.study.Store)
		}
	}
	return nil
}

func (v *dataTab) View(a *App) string {
	st := a.styles
	lw := v.leftWidth()
	rw := v.width - lw
	status := st.Muted.Render("i import · d datasets")
	switch {
	case v.status != "" && v.statusErr:
		status = st.Bad.Render(v.status)
	case v.status != "":
		status = st.Good.Render(v.status)
	case len(v.ds.Contexts) == 0:
		status = st.Warn.Render("no dataset · i imports")
	}
	left := widgets.Pane(st, !v.focusRight, lw, v.height,
		fmt.Sprintf("Contexts · %d", len(v.ds.Contexts)), v.contexts.View(st, !v.focusRight)+"\n"+widgets.Fit(status, lw-widgets.PaneChromeW))

	innerW, innerH := rw-widgets.PaneChromeW, v.height-widgets.PaneChromeH-1
	var body strings.Builder
	head := "id     human  text"
	if v.cal != nil {
		head = "id     human " + calHeader + " text"
	}
	body.WriteString(st.Muted.Render(widgets.Fit(head, innerW)) + "\n")
	body.WriteString(v.candidates.View(st, v.focusRight))
	rest := innerH - 1 - v.candListHeight()
	lines := v.loadLines(st, innerW)
	if cl := a.calLines(st, innerW); len(cl) > 0 {
		lines = append(append(lines, ""), cl...)
	}
	if cand := v.Candidate(); cand != nil {
		lines = append(lines, "", st.Label.Render("Candidate "+cand.ID)+st.Muted.Render(criteria(cand)))
		lines = append(lines, widgets.Wrap(cand.Text, innerW)...)
	}
	if c := v.Context(); c != nil {
		lines = append(lines, "", st.Label.Render("Source"))
		lines = append(lines, widgets.Wrap(c.Source, innerW)...)
	}
	if rest > 0 {
		body.WriteString("\n" + widgets.Block(lines, innerW, rest))
	}
	title := "Candidates"
	if c := v.Context(); c != nil {
		title = fmt.Sprintf("Candidates of %s · %d", c.ID, len(c.Candidates))
	}
	right := widgets.Pane(st, v.focusRight, rw, v.height, title, body.String())
	return lipgloss.JoinHorizontal(lipgloss.Top, left, right)
}

// criteria formats the per-criterion human scores in a stable order.
func criteria(c *model.Candidate) string {
	if len(c.Scores) == 0 {
		return ""
	}
	keys := make([]string, 0, len(c.Scores))
	for k := range c.Scores {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.2f", k, c.Scores[k])
	}
	return "  " + strings.Join(parts, " · ")
}
