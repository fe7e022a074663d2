package data

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// ListedMsg lists the workspace's datasets (d on the Data tab): the App
// keeps the names and opens the Chooser on them.
type ListedMsg struct {
	Names []string
	Err   error
}

// ListDatasetsCmd lists the datasets of st.
func ListDatasetsCmd(ctx context.Context, st *store.Store) tea.Cmd {
	return func() tea.Msg {
		infos, err := st.Datasets(ctx)
		names := make([]string, len(infos))
		for i, in := range infos {
			names[i] = in.Name
		}
		return ListedMsg{Names: names, Err: err}
	}
}

// loadDatasetCmd reads dataset name of st.
func loadDatasetCmd(ctx context.Context, st *store.Store, name string) tea.Cmd {
	return func() tea.Msg {
		ds, err := st.Dataset(ctx, name)
		return tab.DatasetMsg{Dataset: ds, Err: err}
	}
}

// Chooser picks one of the workspace's datasets; enter reads it
// (tab.DatasetMsg).
type Chooser struct {
	svc   Services
	keys  tab.DialogKeys
	names []string
	l     widgets.List
}

// NewChooser is the chooser of names, its cursor on current.
func NewChooser(svc Services, keys tab.DialogKeys, names []string, current string) *Chooser {
	c := &Chooser{svc: svc, keys: keys, names: names}
	c.l.SetRows(names)
	for i, n := range names {
		if n == current {
			c.l.Select(i)
		}
	}
	return c
}

// Names are the datasets offered; Selected is the one under the cursor.
func (c *Chooser) Names() []string { return c.names }
func (c *Chooser) Selected() string {
	if len(c.names) == 0 {
		return ""
	}
	return c.names[c.l.Cursor()]
}

func (c *Chooser) Init() tea.Cmd { return nil }

// size is the dialog's width and list height for the App's window.
func (c *Chooser) size() (w, h int) {
	width, _, body := c.svc.Window()
	return min(50, width-2), min(len(c.names), max(body-8, 3))
}

// Update is the dialog's (tab.Dialog); done closes it.
func (c *Chooser) Update(msg tea.Msg) (done bool, cmd tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return false, nil
	}
	w, h := c.size()
	c.l.SetSize(w-widgets.PaneChromeW, h) // the list scrolls as View shows it
	k := c.keys
	switch {
	case key.Matches(km, k.Up):
		c.l.Move(-1)
	case key.Matches(km, k.Down):
		c.l.Move(1)
	case key.Matches(km, k.Enter):
		if len(c.names) == 0 {
			return true, nil
		}
		return true, loadDatasetCmd(c.svc.Context(), c.svc.Store(), c.names[c.l.Cursor()])
	case key.Matches(km, k.Back):
		return true, nil
	case key.Matches(km, k.Quit):
		return true, tab.Send(tab.QuitMsg{})
	}
	return false, nil
}

// View draws the chooser; it sizes a copy of the list (Update sizes the
// list itself before it moves, so the copy scrolls as the list does).
func (c *Chooser) View(int, int) string {
	st := c.svc.Styles()
	w, h := c.size()
	l := c.l
	l.SetSize(w-widgets.PaneChromeW, h)
	lines := strings.Split(l.View(st, true), "\n")
	lines = append(lines, "", st.Muted.Render("enter open · esc keep the current one"))
	return widgets.Dialog(st, w, fmt.Sprintf("Datasets in the workspace · %d", len(c.names)), lines)
}
