package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/order"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/store"
)

// acquireOrders runs a study of the quality bank's baseline and coverage probes
// on the demo, pointwise or batched, with the offline judge.
func acquireOrders(t *testing.T, st *store.Store, name string, orders int) {
	t.Helper()
	ctx := context.Background()
	b, err := banks.Builtin("quality")
	if err != nil {
		t.Fatal(err)
	}
	spec := engine.Spec{Dataset: datasets.Demo(), Bank: b, BankSource: "builtin:quality", JudgeName: name,
		Config: judge.Defaults(), Repeats: 2, Orders: orders, OrderSeed: 42,
		Probes: []string{"baseline", "coverage:+", "coverage:-", "neutral:fair"}}
	p, err := engine.NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	js, err := engine.NewJudges(spec.Config, spec.Repeats, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := engine.Start(ctx, st, js, p, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := r.Wait(); err != nil || sum.Failed > 0 {
		t.Fatalf("%s: %v, %d failed", name, err, sum.Failed)
	}
}

// The Bank screen shows the presentation-order section beside the signal
// panel once the workspace holds a batched study of the bank, with the
// numbers prism diagnose order computes (200 resamples).
func TestGoldenOrderPanel(t *testing.T) {
	a := demoApp(t, 160, 48)
	drive(a, a.Init())
	press(a, "2")
	if f := frame(a); strings.Contains(f, "Presentation order") {
		t.Fatalf("order section without a batched study:\n%s", f)
	}
	st := a.study.Store
	acquireOrders(t, st, "offline", 0)
	acquireOrders(t, st, "offline-batched", 8)
	a.sigGen++ // answers were added behind the App's back
	clear(a.bank.sig)
	press(a, "1", "2")
	if a.bank.order.sec == nil || a.bank.order.sec.rep == nil {
		t.Fatalf("section not computed: %+v", a.bank.order)
	}
	ctx := context.Background()
	s, err := study.FindOrderStudy(ctx, st, study.OrderStudy{Dataset: "demo", Batched: "offline-batched"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := study.OrderDataOf(ctx, st, a.study.Dataset, s)
	if err != nil {
		t.Fatal(err)
	}
	opts := order.DefaultOptions()
	opts.Bootstrap = orderResamples
	rep, err := order.Diagnostics(data, opts)
	if err != nil {
		t.Fatal(err)
	}
	f := frame(a)
	for _, want := range []string{
		"Presentation order · offline-batched, 8 orders × 2 runs · vs offline",
		fmt.Sprintf("1: %s", num(*rep.Curve[0].Value)),
		fmt.Sprintf("reversed %s [%s, %s]", num(*rep.KendallRev.Value), num(rep.KendallRev.CI[0]), num(rep.KendallRev.CI[1])),
		fmt.Sprintf("pointwise %s", num(*rep.Spearman[0].Spearman)),
	} {
		if !strings.Contains(f, want) {
			t.Errorf("frame lacks %q:\n%s", want, f)
		}
	}
	g := goldenFrames{}
	g.capture(a, "bank-order")
	g.check(t)
}

// Too few contexts: the section says so instead of numbers.
func TestOrderLinesTooFew(t *testing.T) {
	st := demoApp(t, 160, 48).styles
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
		t.Error("a section without a batched study is drawn")
	}
}
