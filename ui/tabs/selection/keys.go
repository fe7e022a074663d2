package selection

import "charm.land/bubbles/v2/key"

// KeyMap is the Select tab's own bindings.
type KeyMap struct {
	RunSelect key.Binding // run the selection
	Budget    key.Binding // show the budget curve
}

// DefaultKeyMap returns the Select tab's standard bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		RunSelect: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "run selection")),
		Budget:    key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "budget curve")),
	}
}
