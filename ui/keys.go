package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/prism-eval/prism/ui/tab"
)

// KeyMap is the App-wide bindings (navigation, tabs, help, quit, the
// dialogs' answers) and those of the tabs still in package ui; a tab in
// its package has its own KeyMap there (ui/tabs/<name>/keys.go).
type KeyMap struct {
	Up, Down, Left, Right key.Binding
	PageUp, PageDown      key.Binding
	Top, Bottom           key.Binding
	NextTab, PrevTab      key.Binding
	Tab1, Tab2            key.Binding
	Tab3, Tab4            key.Binding
	Tab5, Tab6            key.Binding
	Tab7, Tab8            key.Binding
	Enter, Back           key.Binding

	Yes, No    key.Binding
	Help, Quit key.Binding
}

// DefaultKeyMap returns the standard bindings: arrows and vim keys, tab
// between tabs, number keys to jump, ? for the full help.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Left:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "left")),
		Right:    key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "right")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "bottom")),
		NextTab:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next tab")),
		PrevTab:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "prev tab")),
		Tab1:     key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "data")),
		Tab2:     key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "bank")),
		Tab3:     key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "run")),
		Tab4:     key.NewBinding(key.WithKeys("4"), key.WithHelp("4", "select")),
		Tab5:     key.NewBinding(key.WithKeys("5"), key.WithHelp("5", "fit")),
		Tab6:     key.NewBinding(key.WithKeys("6"), key.WithHelp("6", "profiles")),
		Tab7:     key.NewBinding(key.WithKeys("7"), key.WithHelp("7", "inspect")),
		Tab8:     key.NewBinding(key.WithKeys("8"), key.WithHelp("8", "compare")),
		Enter:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "edit")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Yes:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes")),
		No:       key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n", "no")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "more keys")),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// jumps are the bindings that jump to each tab, in tab order.
func (k KeyMap) jumps() []key.Binding {
	return []key.Binding{k.Tab1, k.Tab2, k.Tab3, k.Tab4, k.Tab5, k.Tab6, k.Tab7, k.Tab8}
}

// jumpTo is the tab msg jumps to, or -1.
func (k KeyMap) jumpTo(msg tea.KeyPressMsg) tab.ID {
	for s, b := range k.jumps() {
		if key.Matches(msg, b) {
			return tab.ID(s)
		}
	}
	return -1
}

// ShortHelp is the one-line help bar.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Left, k.Right, k.NextTab, k.Help, k.Quit}
}

// commonHelp is the help ? shows above the current tab's own keys.
func (k KeyMap) commonHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Left, k.Right, k.Enter, k.Back, k.Help, k.Quit},
		append([]key.Binding{k.NextTab, k.PrevTab}, k.jumps()...),
	}
}

// FullHelp is every binding, grouped.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Left, k.Right, k.Enter, k.Back, k.Help, k.Quit},
		append([]key.Binding{k.NextTab, k.PrevTab}, k.jumps()...),
	}
}

// dialog is the bindings a tab's dialog answers to.
func (k KeyMap) dialog() tab.DialogKeys {
	return tab.DialogKeys{Up: k.Up, Down: k.Down, Enter: k.Enter, Back: k.Back, Yes: k.Yes, No: k.No, Quit: k.Quit}
}
