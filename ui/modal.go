package ui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// modal is a dialog drawn over the tab; while one is open it gets every
// key. Update may close it by setting a.modal to nil.
type modal interface {
	Update(a *App, msg tea.Msg) tea.Cmd
	View(a *App, st *styles.Styles) string
}

// overlay draws box centred over base (w×h cells), line by line.
func overlay(base, box string, w, h int) string {
	lines := strings.Split(base, "\n")
	boxLines := strings.Split(box, "\n")
	bw := lipgloss.Width(box)
	top := max((h-len(boxLines))/2, 0)
	left := max((w-bw)/2, 0)
	for i, bl := range boxLines {
		y := top + i
		if y >= len(lines) {
			break
		}
		ln := lines[y]
		lines[y] = ansi.Truncate(ln, left, "") + bl + ansi.TruncateLeft(ln, left+bw, "")
	}
	return strings.Join(lines, "\n")
}

// dialog frames a dialog's lines in a focused pane of width w.
func dialog(st *styles.Styles, w int, title string, lines []string) string {
	inner := w - widgets.PaneChromeW
	return widgets.Pane(st, true, w, len(lines)+widgets.PaneChromeH+1, title, widgets.Block(lines, inner, len(lines)))
}

// confirm asks a yes/no question about work that could be lost: y does
// it, n or esc keeps things as they are. Its lines are the question, then
// what it means (muted).
type confirm struct {
	title   string
	lines   []string
	yes, no string // what y and n do, for the key line
	onYes   func(a *App) tea.Cmd
}

func (c *confirm) Update(a *App, msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(km, a.keys.Yes):
		a.modal = nil
		return c.onYes(a)
	case key.Matches(km, a.keys.No):
		a.modal = nil
	}
	return nil
}

func (c *confirm) View(a *App, st *styles.Styles) string {
	return dialog(st, min(60, a.width-2), c.title, confirmLines(st, min(60, a.width-2)-widgets.PaneChromeW, c.lines, c.yes, c.no))
}

// confirmLines lays out a confirmation: the first line plain, the rest
// muted, each wrapped to w, then the y and n keys.
func confirmLines(st *styles.Styles, w int, lines []string, yes, no string) []string {
	var out []string
	for i, ln := range lines {
		style := st.Text
		if i > 0 {
			style = st.Muted
		}
		out = append(out, widgets.WrapStyled(style, ln, w)...)
	}
	return append(out, "", st.Label.Render("y")+" "+yes+"   "+st.Label.Render("n")+" "+no)
}

// confirmQuit asks before quitting with a run in flight or unsaved bank
// edits, and says what quitting keeps.
type confirmQuit struct{}

func (confirmQuit) Update(a *App, msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(km, a.keys.Yes):
		a.modal = nil
		if a.active == nil && a.bank.screening == nil {
			return tea.Quit
		}
		// Cancel, then quit once everything finished is stored.
		a.quitAfterRun = true
		if a.active != nil {
			a.active.Cancel()
			a.run.live.phase = phaseCanceling
		}
		if a.bank.screening != nil && a.bank.screening.run != nil {
			a.bank.screening.run.Cancel()
		}
	case key.Matches(km, a.keys.No), km.String() == "q":
		a.modal = nil
	}
	return nil
}

// busy is whether a run or a screen of the bank is in flight.
func (a *App) busy() bool { return a.run.active() || a.bank.screening != nil }

// quitText is what the quit dialog says: the question, what happens to
// the answers (stored in a kept workspace; deleted with the demo's
// temporary one) and to unsaved bank edits, and what y and n do.
func (a *App) quitText() (lines []string, yes, no string) {
	bank := fmt.Sprintf("%s (%.7s)", a.bank.bank.Name, a.bank.bank.Hash())
	if !a.busy() {
		return []string{
			"The bank " + bank + " has unsaved edits. Quit without saving them?",
			"n, then w on the Bank tab, saves them as a TOML file.",
		}, "quit", "stay"
	}
	lines = []string{"A run is in progress. Cancel it and quit?"}
	if a.study.Temporary {
		lines = append(lines, "This demo's workspace is temporary: it is deleted on exit, with every answer in it.")
	} else {
		lines = append(lines, "Finished answers are stored; rerun to resume.")
	}
	if a.bank.unsaved() {
		lines = append(lines, "The bank "+bank+" has unsaved edits; they are lost too (w on the Bank tab saves them).")
	}
	return lines, "cancel and quit", "keep running"
}

func (confirmQuit) View(a *App, st *styles.Styles) string {
	w := min(60, a.width-2)
	lines, yes, no := a.quitText()
	return dialog(st, w, "Quit?", confirmLines(st, w-widgets.PaneChromeW, lines, yes, no))
}

type (
	// datasetListMsg lists the workspace's datasets.
	datasetListMsg struct {
		names []string
		err   error
	}
	// datasetMsg carries a dataset read from the workspace.
	datasetMsg struct {
		ds  *model.Dataset
		err error
		// dropEdits: the user agreed to lose unsaved bank edits when
		// this dataset needs another bank.
		dropEdits bool
	}
)

func listDatasetsCmd(ctx context.Context, st *store.Store) tea.Cmd {
	return func() tea.Msg {
		infos, err := st.Datasets(ctx)
		names := make([]string, len(infos))
		for i, in := range infos {
			names[i] = in.Name
		}
		return datasetListMsg{names: names, err: err}
	}
}

func loadDatasetCmd(ctx context.Context, st *store.Store, name string) tea.Cmd {
	return func() tea.Msg {
		ds, err := st.Dataset(ctx, name)
		return datasetMsg{ds: ds, err: err}
	}
}

// onDataset switches the study to a dataset read from the workspace.
func (a *App) onDataset(msg datasetMsg) tea.Cmd {
	if msg.err != nil {
		a.data.status, a.data.statusErr = msg.err.Error(), true
		return nil
	}
	if _, ok := a.bank.bank.Tasks[msg.ds.Task]; !ok && a.bank.unsaved() && !msg.dropEdits {
		// Opening it replaces the bank: unsaved edits would go with it.
		next := msg
		next.dropEdits = true
		a.modal = &confirm{
			title: "Switch dataset?",
			lines: []string{
				fmt.Sprintf("The bank %s (%.7s) has unsaved edits and no %s prompt, so opening %s replaces it. Drop the edits?",
					a.bank.bank.Name, a.bank.bank.Hash(), msg.ds.Task, msg.ds.Name),
				"n keeps the dataset and the bank as they are; w on the Bank tab saves the bank.",
			},
			yes: "open it and drop the edits", no: "keep both",
			onYes: func(a *App) tea.Cmd { return a.onDataset(next) },
		}
		return nil
	}
	a.study.Dataset = msg.ds
	a.data = newDataTab(msg.ds)
	a.bank.task = msg.ds.Task
	a.data.status = fmt.Sprintf("dataset %s · %d candidates", msg.ds.Name, msg.ds.NumCandidates())
	if _, ok := a.bank.bank.Tasks[msg.ds.Task]; !ok {
		// The bank cannot render this kind of data: take a built-in that can.
		if b, src, err := DefaultBank(msg.ds.Task); err == nil {
			a.bank.open(b, src)
			a.study.Bank = b
			a.data.status += fmt.Sprintf(" · bank %s (has the %s prompt)", b.Name, msg.ds.Task)
		}
	}
	a.layout()
	a.bank.Refresh(a.data.Context(), a.data.Candidate())
	// A loaded calibrator follows the study to the dataset.
	return tab.Batch(a.replan(), a.applyCalibrator())
}

// datasetChooser picks one of the workspace's datasets.
type datasetChooser struct {
	names []string
	l     widgets.List
}

func newDatasetChooser(names []string, current string) *datasetChooser {
	c := &datasetChooser{names: names}
	c.l.SetRows(names)
	for i, n := range names {
		if n == current {
			c.l.Select(i)
		}
	}
	return c
}

func (c *datasetChooser) Update(a *App, msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	k := a.keys
	switch {
	case key.Matches(km, k.Up):
		c.l.Move(-1)
	case key.Matches(km, k.Down):
		c.l.Move(1)
	case key.Matches(km, k.Enter):
		a.modal = nil
		if len(c.names) == 0 {
			return nil
		}
		return loadDatasetCmd(a.ctx, a.study.Store, c.names[c.l.Cursor()])
	case key.Matches(km, k.Back):
		a.modal = nil
	case key.Matches(km, k.Quit):
		a.modal = nil
		return a.quit()
	}
	return nil
}

func (c *datasetChooser) View(a *App, st *styles.Styles) string {
	w := min(50, a.width-2)
	h := min(len(c.names), max(a.bodyHeight()-8, 3))
	c.l.SetSize(w-widgets.PaneChromeW, h)
	lines := strings.Split(c.l.View(st, true), "\n")
	lines = append(lines, "", st.Muted.Render("enter open · esc keep the current one"))
	return dialog(st, w, fmt.Sprintf("Datasets in the workspace · %d", len(c.names)), lines)
}
