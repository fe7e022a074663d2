// Package styles holds the TUI's one Styles struct, built from a small set
// of colour tokens for a light or a dark terminal background.
package styles

import (
	"image/color"
	"os"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// Tokens are the semantic colours every style is built from.
type Tokens struct {
	Fg, Muted, Subtle, Accent, AccentFg, Good, Warn, Bad, Border color.Color
}

// TokensFor returns the palette for a dark or a light background.
func TokensFor(isDark bool) Tokens {
	ld := lipgloss.LightDark(isDark)
	return Tokens{
		Fg:       ld(lipgloss.Color("#1f2328"), lipgloss.Color("#e6e6e6")),
		Muted:    ld(lipgloss.Color("#6e7781"), lipgloss.Color("#8b949e")),
		Subtle:   ld(lipgloss.Color("#d0d7de"), lipgloss.Color("#30363d")),
		Accent:   ld(lipgloss.Color("#8250df"), lipgloss.Color("#b392f0")),
		AccentFg: ld(lipgloss.Color("#ffffff"), lipgloss.Color("#0d1117")),
		Good:     ld(lipgloss.Color("#1a7f37"), lipgloss.Color("#56d364")),
		Warn:     ld(lipgloss.Color("#9a6700"), lipgloss.Color("#e3b341")),
		Bad:      ld(lipgloss.Color("#cf222e"), lipgloss.Color("#f85149")),
		Border:   ld(lipgloss.Color("#d0d7de"), lipgloss.Color("#3d444d")),
	}
}

// Styles is every style the TUI draws with. Components receive it by
// pointer and never build colours of their own.
type Styles struct {
	Tokens Tokens

	Brand     lipgloss.Style // the app name in the header
	Badge     lipgloss.Style // "demo", "simulator" tags
	Header    lipgloss.Style
	Tab       lipgloss.Style
	TabActive lipgloss.Style

	Title    lipgloss.Style // a pane's title
	Text     lipgloss.Style
	Muted    lipgloss.Style
	Selected lipgloss.Style // the highlighted row of a focused list
	Cursor   lipgloss.Style // the highlighted row of an unfocused list
	Pane     lipgloss.Style // a bordered pane
	PaneOn   lipgloss.Style // the focused pane
	Label    lipgloss.Style // a field label ("system", "user")
	Good     lipgloss.Style
	Warn     lipgloss.Style
	Bad      lipgloss.Style

	Help help.Styles
}

// New builds the styles for a dark or a light background. Under NO_COLOR
// (https://no-color.org; lipgloss then drops every colour) the selection
// is drawn in reverse video and the cursor underlined, so they stay
// visible without colour.
func New(isDark bool) *Styles {
	t := TokensFor(isDark)
	s := &Styles{Tokens: t}
	s.Brand = lipgloss.NewStyle().Bold(true).Foreground(t.Accent)
	s.Badge = lipgloss.NewStyle().Foreground(t.AccentFg).Background(t.Accent).Padding(0, 1)
	s.Header = lipgloss.NewStyle().Foreground(t.Muted)
	s.Tab = lipgloss.NewStyle().Foreground(t.Muted).Padding(0, 1)
	s.TabActive = lipgloss.NewStyle().Foreground(t.Accent).Bold(true).Underline(true).Padding(0, 1)
	s.Title = lipgloss.NewStyle().Bold(true).Foreground(t.Fg)
	s.Text = lipgloss.NewStyle().Foreground(t.Fg)
	s.Muted = lipgloss.NewStyle().Foreground(t.Muted)
	s.Selected = lipgloss.NewStyle().Foreground(t.AccentFg).Background(t.Accent)
	s.Cursor = lipgloss.NewStyle().Foreground(t.Fg).Background(t.Subtle)
	s.Pane = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(t.Border).Padding(0, 1)
	s.PaneOn = s.Pane.BorderForeground(t.Accent)
	s.Label = lipgloss.NewStyle().Bold(true).Foreground(t.Accent)
	s.Good = lipgloss.NewStyle().Foreground(t.Good)
	s.Warn = lipgloss.NewStyle().Foreground(t.Warn)
	s.Bad = lipgloss.NewStyle().Foreground(t.Bad)
	s.Help = help.DefaultStyles(isDark)
	if os.Getenv("NO_COLOR") != "" {
		s.Selected = lipgloss.NewStyle().Reverse(true)
		s.Cursor = lipgloss.NewStyle().Underline(true)
		s.TabActive = s.TabActive.Reverse(true)
	}
	return s
}
