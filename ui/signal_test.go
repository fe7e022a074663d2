package ui

import (
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/signal"
)

// TestRunPanelTooFew: after 88 of the demo's 2,280 requests only the
// first context has answers, fewer than signal.MinContexts, so no
// unit gets a verdict. Both the live panel and the one computed with the
// final resamples (as after a cancel) show "too few" where the bar, the
// interval and ✓ would be: a lone context's bootstrap collapses to its
// point estimate (the panel used to read "fluency 1.00✓ [1.00,1.00]").
func TestRunPanelTooFew(t *testing.T) {
	t.Parallel()
	const answered = 88
	a := heldDemoRun(t, 160, 48, answered)
	defer stopRun(t, a)
	check := func(when string) {
		t.Helper()
		sig := runSignal(a)
		if sig == nil || sig.Pooling != signal.PoolingWordingMean {
			t.Fatalf("%s: panel %+v", when, sig)
		}
		for _, r := range append(sig.Rows, sig.Pooled) {
			if r.HasSignal && (!r.TooFew || r.Pass || r.Contexts >= signal.MinContexts) {
				t.Errorf("%s: row %+v has a verdict on %d contexts", when, r, r.Contexts)
			}
		}
		f := frame(a)
		for _, name := range []string{"fluency", "accuracy", "pooled"} {
			line := lineWith(f, " "+name+" ")
			if !strings.Contains(line, "too few (1 contexts)") || strings.Contains(line, "✓") || strings.Contains(line, "[") {
				t.Errorf("%s: row of %s: %q; want \"too few\" and no verdict or interval", when, name, line)
			}
		}
		if !strings.Contains(f, "wordings averaged · verdicts from 5 contexts") {
			t.Errorf("%s: the panel does not say how it pooled:\n%s", when, f)
		}
	}
	check("live")
	a.Update(a.run.SignalNow(true)())
	check("final")
}
