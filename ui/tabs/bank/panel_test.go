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

// lineWith is the first line of f that contains s.
func lineWith(f, s string) string {
	for _, ln := range strings.Split(f, "\n") {
		if strings.Contains(ln, s) {
			return ln
		}
	}
	return ""
}
