package profiles

import "charm.land/bubbles/v2/key"

// KeyMap is the Profiles tab's own bindings: f, m and t act on the Fit
// tab's fit, which this tab shows.
type KeyMap struct {
	Refit, Metric, Taylor, Sort key.Binding
}

// DefaultKeyMap returns the Profiles tab's standard bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Refit:  key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fit")),
		Metric: key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "metric")),
		Taylor: key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "taylor")),
		Sort:   key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "sort")),
	}
}
