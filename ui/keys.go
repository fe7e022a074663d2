package ui

import "charm.land/bubbles/v2/key"

// KeyMap is every binding of the app; the help bar renders it.
type KeyMap struct {
	Up, Down, Left, Right  key.Binding
	PageUp, PageDown       key.Binding
	Top, Bottom            key.Binding
	NextScreen, PrevScreen key.Binding
	Screen1, Screen2       key.Binding
	Help, Quit             key.Binding
}

// DefaultKeyMap returns the standard bindings: arrows and vim keys, tab
// between screens, number keys to jump, ? for the full help.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:         key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:       key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Left:       key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "left pane")),
		Right:      key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "right pane")),
		PageUp:     key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Top:        key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "top")),
		Bottom:     key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "bottom")),
		NextScreen: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next screen")),
		PrevScreen: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "prev screen")),
		Screen1:    key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "data")),
		Screen2:    key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "bank")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "more keys")),
		Quit:       key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the one-line help bar.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Left, k.Right, k.NextScreen, k.Help, k.Quit}
}

// FullHelp is the help shown with ?.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Left, k.Right},
		{k.NextScreen, k.PrevScreen, k.Screen1, k.Screen2},
		{k.Help, k.Quit},
	}
}
