package inspect

import "charm.land/bubbles/v2/key"

// KeyMap is the Inspect tab's own bindings.
type KeyMap struct {
	Back, NextCand, PrevCand, Refit key.Binding
}

// DefaultKeyMap returns the Inspect tab's standard bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		NextCand: key.NewBinding(key.WithKeys("]"), key.WithHelp("]/[", "next/prev")), // the help bar's entry for both
		PrevCand: key.NewBinding(key.WithKeys("["), key.WithHelp("[", "prev candidate")),
		Refit:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fit")),
	}
}
