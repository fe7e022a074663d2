package tab

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// ID names a tab; the constants are in tab order.
type ID int

const (
	Data ID = iota
	Bank
	Run
	Select
	Fit
	Profiles
	Inspect
	Compare
	Count // the number of tabs
)

// Names are the tabs' names; ShortNames label the tabs of a narrow
// terminal, where every full name does not fit beside the badge.
var (
	Names      = [Count]string{"Data", "Bank", "Run", "Select", "Fit", "Profiles", "Inspect", "Compare"}
	ShortNames = [Count]string{"Data", "Bank", "Run", "Select", "Fit", "Prof", "Insp", "Comp"}
)

func (id ID) String() string {
	if id < 0 || id >= Count {
		return "tab?"
	}
	return Names[id]
}

// Tab is one tab of the App. It owns its state and handles its own keys
// and the messages of its own work; it reads what the App shares through
// the services it was built with (Services or narrower). The App
// dispatches:
//
//   - a key goes to the current tab when its text input has the keys
//     (Editing), else when the App's common keys (quit, help, tabs,
//     navigation) do not take it;
//   - navigation keys, the wheel and clicks reach the current tab as
//     MoveMsg, FocusMsg and ClickMsg;
//   - every other message goes to every tab, and each acts only on its
//     own (a run's events on the Run tab, a fit's on the Fit tab) or on
//     the messages tabs talk with (msg.go).
//
// View only reads: scroll offsets, cursors and caches change in Update.
type Tab interface {
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
	// Keys are the tab's own bindings as the help bar shows them now.
	Keys() []key.Binding
	// Badge is what the tab's label adds to its name (the progress of its
	// work), or "".
	Badge() string
	// Editing is true while a text input of the tab takes every key.
	Editing() bool
}

// Shower is a Tab that follows others' state while it is shown (the Bank
// tab's preview of the Data tab's candidate): the App calls Shown when
// the tab becomes the current one.
type Shower interface {
	Shown() tea.Cmd
}

// Batch is tea.Batch without the nil commands, nil when none is left.
func Batch(cmds ...tea.Cmd) tea.Cmd {
	var out []tea.Cmd
	for _, c := range cmds {
		if c != nil {
			out = append(out, c)
		}
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return tea.Batch(out...)
}

// Send is a command that delivers msg: how a tab tells the others.
func Send(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// Dialog is a box drawn over the current tab; while one is open it gets
// every key and every message that is not the App's. A tab opens its
// dialogs with OpenDialogMsg; their actions are the tab's (closures over
// it) or messages.
type Dialog interface {
	// Init is the dialog's first command (a directory listing), or nil.
	Init() tea.Cmd
	// Update handles msg; done closes the dialog.
	Update(msg tea.Msg) (done bool, cmd tea.Cmd)
	// View draws the box for a body of w×h cells (the App centres it).
	View(w, h int) string
}

// DialogKeys are the App-wide bindings a dialog answers to, which the
// App hands the tabs that open dialogs.
type DialogKeys struct {
	Up, Down, Enter, Back, Yes, No, Quit key.Binding
}
