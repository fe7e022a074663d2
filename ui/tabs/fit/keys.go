package fit

import "charm.land/bubbles/v2/key"

// KeyMap is the Fit tab's own bindings (its replace dialog uses the
// App's tab.DialogKeys).
type KeyMap struct {
	Refit, Metric, Taylor, Export, SaveCalibrator key.Binding
}

// DefaultKeyMap returns the Fit tab's standard bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Refit:          key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fit")),
		Metric:         key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "metric")),
		Taylor:         key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "taylor")),
		Export:         key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "export")),
		SaveCalibrator: key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "calibrator")),
	}
}
