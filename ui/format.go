package ui

import "github.com/prism-eval/prism/ui/widgets"

// mean4 and gain4 print a mean and a gain with 4 decimals, or "—"
// (widgets.Mean4, widgets.Gain4).
var mean4, gain4 = widgets.Mean4, widgets.Gain4
