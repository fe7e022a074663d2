package data

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// Services is what the Data tab needs from the App.
type Services interface {
	tab.Styles
	tab.Clock
	tab.Window
	// Store is the open workspace, nil when none is.
	Store() *store.Store
	// ImportDir is where the import dialog's file picker starts.
	ImportDir() string
	Calibrator
}

// Calibrator is the calibrator the App keeps (the Fit tab saves one,
// Inspect shows it) as the Data tab loads and shows it.
type Calibrator interface {
	// CalibratorPath is the path L offers: the last one saved or loaded.
	CalibratorPath() string
	// LoadCalibrator reads the calibrator at path and applies it to the
	// open dataset; the App takes the messages of the command.
	LoadCalibrator(path string) tea.Cmd
	// CalibratorLines are the lines about it under the candidate list.
	CalibratorLines(st *styles.Styles, w int) []string
}

// Columns are the calibrator's columns of the candidate rows: Header
// heads them, Row is a candidate's.
type Columns struct {
	Header string
	Row    func(context, candidate string) string
}

// Tab is the Data tab.
type Tab struct {
	svc        Services
	keys       KeyMap
	dialogKeys tab.DialogKeys
	ds         *model.Dataset
	contexts   widgets.List
	candidates widgets.List
	focusRight bool
	status     string // the last import or dataset switch
	statusErr  bool
	loadIn     *textinput.Model // the calibrator path asked for after L, or nil
	// cal is the loaded calibrator's columns on this dataset, or nil.
	cal           *Columns
	width, height int
}

// New is the Data tab of ds.
func New(svc Services, keys KeyMap, dialogKeys tab.DialogKeys, ds *model.Dataset) *Tab {
	v := &Tab{svc: svc, keys: keys, dialogKeys: dialogKeys, ds: ds}
	rows := make([]string, len(ds.Contexts))
	for i, c := range ds.Contexts {
		rows[i] = fmt.Sprintf("%-s (%d)", c.ID, len(c.Candidates))
	}
	v.contexts.SetRows(rows)
	v.syncCandidates()
	return v
}

// Dataset is the tab's dataset.
func (v *Tab) Dataset() *model.Dataset { return v.ds }

// Context is the selected context (nil for an empty dataset).
func (v *Tab) Context() *model.Context {
	if len(v.ds.Contexts) == 0 {
		return nil
	}
	return &v.ds.Contexts[v.contexts.Cursor()]
}

// Candidate is the selected candidate (nil when there is none).
func (v *Tab) Candidate() *model.Candidate {
	c := v.Context()
	if c == nil || len(c.Candidates) == 0 {
		return nil
	}
	return &c.Candidates[v.candidates.Cursor()]
}

// SelectCandidate moves the cursors to candidate cand of context ctx and
// reports whether the dataset has it.
func (v *Tab) SelectCandidate(ctx, cand string) bool {
	ci, ki := v.ds.Locate(ctx, cand)
	if ki < 0 {
		return false
	}
	v.contexts.Select(ci)
	v.syncCandidates()
	v.candidates.Select(ki)
	return true
}

// StepCandidate moves the candidate cursor by delta within its context
// and reports whether it moved (at either end it stays).
func (v *Tab) StepCandidate(delta int) bool {
	before := v.candidates.Cursor()
	v.candidates.Move(delta)
	return v.candidates.Cursor() != before
}

// SetStatus shows text on the status line (err: as an error).
func (v *Tab) SetStatus(text string, err bool) { v.status, v.statusErr = text, err }

// Status is the status line and whether it is an error.
func (v *Tab) Status() (string, bool) { return v.status, v.statusErr }

// Loading is the calibrator path being typed after L, or "" (ok false)
// when none is asked for.
func (v *Tab) Loading() (path string, ok bool) {
	if v.loadIn == nil {
		return "", false
	}
	return v.loadIn.Value(), true
}

// SetCalibrated shows cols beside the candidates (nil: none).
func (v *Tab) SetCalibrated(cols *Columns) {
	v.cal = cols
	v.syncCandidates()
}

// Calibrated is the calibrator columns shown, or nil.
func (v *Tab) Calibrated() *Columns { return v.cal }

func (v *Tab) syncCandidates() {
	c := v.Context()
	if c == nil {
		v.candidates.SetRows(nil)
		return
	}
	rows := make([]string, len(c.Candidates))
	for i, cand := range c.Candidates {
		text := strings.Join(strings.Fields(cand.Text), " ")
		if v.cal != nil {
			rows[i] = fmt.Sprintf("%-6s %5.2f %s %s", cand.ID, cand.Human, v.cal.Row(c.ID, cand.ID), text)
			continue
		}
		rows[i] = fmt.Sprintf("%-6s %5.2f  %s", cand.ID, cand.Human, text)
	}
	v.candidates.SetRows(rows)
}

func (v *Tab) leftWidth() int { return max(v.width/3, 20) }

func (v *Tab) SetSize(w, h int) {
	v.width, v.height = w, h
	v.contexts.SetSize(v.leftWidth()-widgets.PaneChromeW, h-widgets.PaneChromeH-2) // a line for the status
	v.candidates.SetSize(w-v.leftWidth()-widgets.PaneChromeW, v.candListHeight())
}

// The right pane gives the candidate list about a third of its height.
func (v *Tab) candListHeight() int { return max((v.height-widgets.PaneChromeH-1)/3, 3) }

// Move moves the cursor of the focused list.
func (v *Tab) Move(delta int) {
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

func (v *Tab) Focus(right bool) { v.focusRight = right }

// Click selects the row under a click at (x, y), relative to the view.
func (v *Tab) Click(x, y int) {
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
func (v *Tab) Keys() []key.Binding {
	k := v.keys
	return []key.Binding{k.Inspect, k.Import, k.PickDataset, k.LoadCalibrator}
}

func (v *Tab) Badge() string { return "" }
func (v *Tab) Editing() bool { return v.loadIn != nil }

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
