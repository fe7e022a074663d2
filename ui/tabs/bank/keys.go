package bank

import (
	"charm.land/bubbles/v2/key"
	"github.com/prism-eval/prism/ui/tab"
)

// KeyMap is the Bank tab's own bindings (its confirmations use the App's
// tab.DialogKeys).
type KeyMap struct {
	ScreenBank, Edit, Clause, AddAttr, DelAttr, NextBank, SaveBank key.Binding
}

// DefaultKeyMap returns the Bank tab's standard bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		ScreenBank: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "screen bank")),
		Edit:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "edit")),
		Clause:     key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "edit clause")),
		AddAttr:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "add attr")),
		DelAttr:    key.NewBinding(key.WithKeys("x", "delete"), key.WithHelp("x", "remove")),
		NextBank:   key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "next bank")),
		SaveBank:   key.NewBinding(key.WithKeys("w", "ctrl+s"), key.WithHelp("w", "save")),
	}
}

var _ tab.Tab = (*Tab)(nil)
var _ tab.Shower = (*Tab)(nil)
