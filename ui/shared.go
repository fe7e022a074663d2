package ui

import (
	"charm.land/bubbles/v2/textinput"

	"github.com/prism-eval/prism/ui/ratio"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// What the tabs not moved to their packages yet share, under the names
// they use, from the packages that own it now.

// mean4 and gain4 print a mean and a gain with 4 decimals, or "—"
// (widgets.Mean4, widgets.Gain4).
var mean4, gain4 = widgets.Mean4, widgets.Gain4

// errNoWorkspace is why work that needs the workspace does not start.
var errNoWorkspace = tab.ErrNoWorkspace

// finalResamples is the bootstrap size of a final ratio interval.
const finalResamples = ratio.FinalResamples

// newFieldInput is a dialog's text input (widgets.FieldInput).
func newFieldInput() textinput.Model { return widgets.FieldInput() }
