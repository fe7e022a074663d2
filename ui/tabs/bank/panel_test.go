package bank

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/prism-eval/prism/calib/order"
	"github.com/prism-eval/prism/calib/signal"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/ui/ratio"
	"github.com/prism-eval/prism/ui/styles"
)

// Too few contexts: the section says so instead of numbers.
func TestOrderLinesTooFew(t *testing.T) {
	st := styles.New(true)
	tf := order.Stat{TooFew: "too few: 2 usable contexts, needs 5", Contexts: 2}
	o := orderState{sec: &orderSection{study: study.OrderStudy{Batched: "b"}, rep: &order.Report{
		Orders: 2, Repeats: 1, Curve: []order.CurvePoint{{Orders: 1, Stat: tf}},
		RepeatRef: tf, PointRef: tf, KendallRev: tf, KendallRep: tf, KendallGap: tf,
		Spearman: []order.Spearman{{Format: "pointwise", TooFew: "x"}, {Format: "batched", Orders: 1, TooFew: "x"}},
	}}}
	lines := o.orderLines(st, 150)
	f := strings.Join(lines, "\n")
	if strings.Count(f, "too few") != 7 || strings.ContainsAny(f, "0123456789.") && strings.Contains(f, "0.") {
		t.Errorf("section:\n%s", f)
	}
	if (orderState{}).orderLines(st, 100) != nil || (orderState{sec: &orderSection{}}).orderLines(st, 100) != nil {
		t.Error("a section without a listwise study is drawn")
	}
}

// TestBankPanelTooFew: the Bank tab's panel shows "too few" and the
// number of contexts instead of an interval, a verdict and a bar.
func TestBankPanelTooFew(t *testing.T) {
	st := styles.New(true)
	v := &ratio.View{Pooling: signal.PoolingWordingMean,
		Rows: []ratio.Row{
			{Name: "fluency", N: 8, Ratio: 1, Lo: 1, Hi: 1, HasSignal: true, TooFew: true, Contexts: 1},
			{Name: "coverage", N: 240, Ratio: 1.5, Lo: 1.2, Hi: 1.8, Pass: true, HasSignal: true, Contexts: 12},
		},
		Pooled: ratio.Row{Name: "pooled", N: 16, Ratio: 1.2, Lo: 1.1, Hi: 1.3, HasSignal: true, TooFew: true, Contexts: 4}}
	p := bankPanel{shown: true, sig: &bankSignal{view: v, source: "all stored answers"}}
	f := ansi.Strip(strings.Join(p.signalLines(st, 100), "\n"))
	for name, want := range map[string]string{"fluency": "(1 contexts)", "coverage": "[1.20, 1.80]", "pooled": "(4 contexts)"} {
		line := lineWith(f, name+" ")
		if !strings.Contains(line, want) {
			t.Errorf("row of %s lacks %q: %q", name, want, line)
		}
		tooFew := name != "coverage"
		if strings.Contains(line, "too few") != tooFew || strings.Contains(line, "pass") == tooFew || strings.Contains(line, "│") == tooFew {
			t.Errorf("row of %s: %q; too few %v", name, line, tooFew)
		}
	}
	if !strings.Contains(f, "wordings averaged") {
		t.Errorf("panel does not say how it pooled:\n%s", f)
	}
}

// The panel states its pass rule and why a screen of many contexts can
// leave a unit without a verdict (issue 46), whole even on a narrow pane,
// and no longer says "verdicts from 5 contexts" beside its sample.
func TestBankPanelStatesRule(t *testing.T) {
	st := styles.New(true)
	v := &ratio.View{Pooling: signal.PoolingWordingMean,
		Rows:   []ratio.Row{{Name: "coverage", N: 240, Ratio: 1.5, Lo: 1.2, Hi: 1.8, Pass: true, HasSignal: true, Contexts: 12}},
		Pooled: ratio.Row{Name: "pooled", N: 240, Ratio: 1.5, Lo: 1.2, Hi: 1.8, Pass: true, HasSignal: true, Contexts: 12}}
	p := bankPanel{shown: true, sig: &bankSignal{view: v, source: "screen: 12 contexts × 2 runs"}}
	for _, w := range []int{100, 44} {
		lines := p.signalLines(st, w)
		for _, ln := range lines {
			if n := ansi.StringWidth(ln); n > w {
				t.Errorf("width %d: line of %d cells %q", w, n, ansi.Strip(ln))
			}
		}
		f := strings.Join(strings.Fields(ansi.Strip(strings.Join(lines, "\n"))), " ")
		for _, want := range []string{"pass: the ratio's 2.5% bound > 1", "a verdict needs ≥ 5 contexts with answers to the unit and to neutral"} {
			if !strings.Contains(f, want) {
				t.Errorf("width %d: panel lacks %q:\n%s", w, want, f)
			}
		}
		if strings.Contains(f, "verdicts from") {
			t.Errorf("width %d: panel still says verdicts from:\n%s", w, f)
		}
	}
}

// lineWith is the first line of f that contains s.
func lineWith(f, s string) string {
	for _, ln := range strings.Split(f, "\n") {
		if strings.Contains(ln, s) {
			return ln
		}
	}
	return ""
}
