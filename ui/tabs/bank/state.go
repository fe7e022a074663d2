package bank

import (
	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib/order"
	"github.com/prism-eval/prism/ui/ratio"
)

// What the App and its tests read of the tab.

// Status is the last edit's, save's or screen's outcome and whether it
// is an error.
func (v *Tab) Status() (string, bool) { return v.status, v.statusErr }

// Condition is the condition under the cursor; Conditions, every one.
func (v *Tab) Condition() banks.Condition    { return v.selected() }
func (v *Tab) Conditions() []banks.Condition { return v.conds }

// Preview is the request preview's lines (a role line starts with NUL)
// or why it cannot be rendered.
func (v *Tab) Preview() ([]string, error) { return v.preview, v.previewErr }

// EditValue is the text being edited ("" when none).
func (v *Tab) EditValue() string {
	if !v.editing {
		return ""
	}
	return v.input.Value()
}

// Signal is the signal panel's report of the current study: its ratios
// (nil without answers) and what it was computed from; ok is false until
// one is computed.
func (v *Tab) Signal() (view *ratio.View, source string, ok bool) {
	s, ok := v.current()
	return s.view, s.source, ok
}

// OrderReport is the presentation-order section's report, nil until one
// is computed (or without a listwise study of the bank).
func (v *Tab) OrderReport() *order.Report {
	if v.order.sec == nil {
		return nil
	}
	return v.order.sec.rep
}

// ScreenStarted is whether a screen of the bank has started its run.
func (v *Tab) ScreenStarted() bool { return v.screening != nil && v.screening.run != nil }
