package data

import (
	"charm.land/bubbles/v2/key"
	"github.com/prism-eval/prism/ui/tab"
)

// KeyMap is the Data tab's own bindings (its dialogs use the App's
// tab.DialogKeys).
type KeyMap struct {
	Inspect, Import, PickDataset, LoadCalibrator key.Binding
}

// DefaultKeyMap returns the Data tab's standard bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Inspect:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "inspect")),
		Import:         key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "import")),
		PickDataset:    key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "datasets")),
		LoadCalibrator: key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "calibrator")),
	}
}

var _ tab.Tab = (*Tab)(nil)
