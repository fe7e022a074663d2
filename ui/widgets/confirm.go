package widgets

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/ui/styles"
)

// Confirm asks a yes/no question about work that could be lost: Yes does
// it (OnYes), No keeps things as they are. Lines are the question, then
// what it means (muted); YesText and NoText say what y and n do. It is a
// tab.Dialog: a tab opens it with tab.OpenDialogMsg.
type Confirm struct {
	Styles          *styles.Styles
	Title           string
	Lines           []string
	YesText, NoText string
	Yes, No         key.Binding
	OnYes           func() tea.Cmd
}

func (c *Confirm) Init() tea.Cmd { return nil }

// Update closes the dialog on y (running OnYes) or n.
func (c *Confirm) Update(msg tea.Msg) (done bool, cmd tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return false, nil
	}
	switch {
	case key.Matches(km, c.Yes):
		return true, c.OnYes()
	case key.Matches(km, c.No):
		return true, nil
	}
	return false, nil
}

// View draws the question for a body width wide.
func (c *Confirm) View(width, _ int) string {
	w := min(60, width-2)
	return Dialog(c.Styles, w, c.Title, ConfirmLines(c.Styles, w-PaneChromeW, c.Lines, c.YesText, c.NoText))
}
