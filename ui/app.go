// Package ui is prism's Bubble Tea TUI: one root App that owns all state
// and routes messages, with child views as plain structs that take a size
// and render a string. No I/O happens in Update; long work runs in commands
// and comes back as messages.
package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/styles"
)

// Study is what the App shows: a dataset, a probe bank and a judge.
type Study struct {
	Dataset *model.Dataset
	Bank    *banks.Bank
	Judge   string // the judge's display name, e.g. "offline (simulator)"
	Demo    bool   // the embedded demo study
}

type screen int

const (
	screenData screen = iota
	screenBank
	numScreens
)

var screenNames = [numScreens]string{"Data", "Bank"}

// Minimum layout; smaller terminals get a notice instead of a broken frame.
const minWidth, minHeight = 60, 16

// App is the root Bubble Tea model.
type App struct {
	study    Study
	styles   *styles.Styles
	keys     KeyMap
	help     help.Model
	screen   screen
	fullHelp bool

	data dataView
	bank bankView

	width, height int
}

// New builds the App for a study. The styles assume a dark background until
// the terminal reports its colour.
func New(s Study) *App {
	a := &App{
		study:  s,
		keys:   DefaultKeyMap(),
		help:   help.New(),
		data:   newDataView(s.Dataset),
		bank:   newBankView(s.Bank, s.Dataset.Task),
		width:  80,
		height: 24,
	}
	a.setStyles(true)
	a.layout()
	return a
}

func (a *App) setStyles(isDark bool) {
	a.styles = styles.New(isDark)
	a.help.Styles = a.styles.Help
}

// Init asks the terminal for its background colour (for light/dark styles).
func (a *App) Init() tea.Cmd {
	return tea.RequestBackgroundColor
}

// Update routes a message to the App's state.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.width, a.height = msg.Width, msg.Height
		a.layout()
	case tea.BackgroundColorMsg:
		a.setStyles(msg.IsDark())
	case tea.KeyPressMsg:
		return a, a.handleKey(msg)
	case tea.MouseClickMsg:
		a.handleClick(msg.Mouse())
	case tea.MouseWheelMsg:
		switch msg.Mouse().Button {
		case tea.MouseWheelUp:
			a.move(-1)
		case tea.MouseWheelDown:
			a.move(1)
		}
	}
	return a, nil
}

func (a *App) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		a.fullHelp = !a.fullHelp
		a.layout()
	case key.Matches(msg, k.NextScreen):
		a.setScreen((a.screen + 1) % numScreens)
	case key.Matches(msg, k.PrevScreen):
		a.setScreen((a.screen + numScreens - 1) % numScreens)
	case key.Matches(msg, k.Screen1):
		a.setScreen(screenData)
	case key.Matches(msg, k.Screen2):
		a.setScreen(screenBank)
	case key.Matches(msg, k.Up):
		a.move(-1)
	case key.Matches(msg, k.Down):
		a.move(1)
	case key.Matches(msg, k.PageUp):
		a.move(-a.pageRows())
	case key.Matches(msg, k.PageDown):
		a.move(a.pageRows())
	case key.Matches(msg, k.Top):
		a.move(-1 << 30)
	case key.Matches(msg, k.Bottom):
		a.move(1 << 30)
	case key.Matches(msg, k.Left):
		a.focus(false)
	case key.Matches(msg, k.Right):
		a.focus(true)
	}
	return nil
}

func (a *App) pageRows() int { return max(a.bodyHeight()-4, 1) }

func (a *App) setScreen(s screen) {
	a.screen = s
	if s == screenBank {
		a.bank.Refresh(a.data.Context(), a.data.Candidate())
	}
}

func (a *App) move(delta int) {
	switch a.screen {
	case screenData:
		a.data.Move(delta)
	case screenBank:
		a.bank.Move(delta)
		a.bank.Refresh(a.data.Context(), a.data.Candidate())
	}
}

func (a *App) focus(right bool) {
	switch a.screen {
	case screenData:
		a.data.Focus(right)
	case screenBank:
		a.bank.Focus(right)
	}
}

func (a *App) handleClick(m tea.Mouse) {
	if m.Button != tea.MouseLeft {
		return
	}
	if m.Y == 0 { // the tab row
		x := lipgloss.Width(a.brand())
		for s := range numScreens {
			w := lipgloss.Width(a.tab(s))
			if m.X >= x && m.X < x+w {
				a.setScreen(s)
				return
			}
			x += w
		}
		return
	}
	y := m.Y - a.headerHeight()
	switch a.screen {
	case screenData:
		a.data.Click(m.X, y)
	case screenBank:
		a.bank.Click(m.X, y)
		a.bank.Refresh(a.data.Context(), a.data.Candidate())
	}
}

func (a *App) headerHeight() int { return 2 }

func (a *App) helpView() string {
	a.help.SetWidth(a.width)
	if a.fullHelp {
		return a.help.FullHelpView(a.keys.FullHelp())
	}
	return a.help.ShortHelpView(a.keys.ShortHelp())
}

func (a *App) bodyHeight() int {
	return a.height - a.headerHeight() - lipgloss.Height(a.helpView())
}

func (a *App) layout() {
	h := a.bodyHeight()
	a.data.SetSize(a.width, h)
	a.bank.SetSize(a.width, h)
	if a.screen == screenBank {
		a.bank.Refresh(a.data.Context(), a.data.Candidate())
	}
}

func (a *App) brand() string { return a.styles.Brand.Render("prism") + " " }

func (a *App) tab(s screen) string {
	label := fmt.Sprintf("%d %s", s+1, screenNames[s])
	if s == a.screen {
		return a.styles.TabActive.Render(label)
	}
	return a.styles.Tab.Render(label)
}

func (a *App) header() string {
	var tabs strings.Builder
	tabs.WriteString(a.brand())
	for s := range numScreens {
		tabs.WriteString(a.tab(s))
	}
	line1 := tabs.String()
	if a.study.Demo {
		badge := a.styles.Badge.Render("demo")
		if gap := a.width - lipgloss.Width(line1) - lipgloss.Width(badge); gap > 0 {
			line1 += strings.Repeat(" ", gap) + badge
		}
	}
	ds := a.study.Dataset
	info := fmt.Sprintf("dataset %s · %d contexts · %d candidates · bank %s · judge %s",
		ds.Name, len(ds.Contexts), ds.NumCandidates(), a.study.Bank.Name, a.study.Judge)
	return fit(line1, a.width) + "\n" + a.styles.Header.Render(fit(info, a.width))
}

// View draws the whole frame.
func (a *App) View() tea.View {
	var body string
	if a.width < minWidth || a.height < minHeight {
		body = fmt.Sprintf("prism needs at least %d×%d; this terminal is %d×%d.", minWidth, minHeight, a.width, a.height)
	} else {
		var screenView string
		switch a.screen {
		case screenData:
			screenView = a.data.View(a.styles)
		case screenBank:
			screenView = a.bank.View(a.styles)
		}
		body = a.header() + "\n" + screenView + "\n" + a.helpView()
	}
	v := tea.NewView(body)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "prism"
	return v
}
