package run

import "charm.land/bubbles/v2/key"

// KeyMap is the Run tab's own bindings, with the App-wide Enter and Back
// it answers to (enter edits a field or inspects a response, esc leaves
// the form for the run).
type KeyMap struct {
	Start, Pause, Cancel, EditJudge key.Binding
	// Inspect opens the Inspect tab on the selected response.
	Inspect     key.Binding
	Enter, Back key.Binding
}

// DefaultKeyMap returns the Run tab's standard bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Start:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "start")),
		Pause:     key.NewBinding(key.WithKeys("p", "space"), key.WithHelp("p", "pause")),
		Cancel:    key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "cancel")),
		EditJudge: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "judge")),
		Inspect:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "inspect")),
		Enter:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "edit")),
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}
