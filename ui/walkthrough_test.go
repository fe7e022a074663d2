package ui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/judge/offline"
	"github.com/prism-eval/prism/ui/tab"
	runtab "github.com/prism-eval/prism/ui/tabs/run"
)

// walkthroughDemo is a fresh demo session as `prism` opens it: the demo
// dataset stored, and the answers of the offline simulator's variants
// (offline-strict, offline-verbose), which ui/cli's demo stores before
// the App opens (acquireDemoJudges; ui cannot import ui/cli).
func walkthroughDemo(t *testing.T, w, h int) *App {
	t.Helper()
	s := demoStudy(t)
	for _, m := range offline.Variants() {
		cfg := judge.Defaults()
		cfg.Model = m
		spec := engine.Spec{Dataset: s.Dataset, Bank: s.Bank, BankSource: s.BankSource,
			JudgeName: engine.DefaultJudgeName(cfg), Config: cfg, Repeats: 1}
		if _, err := engine.Acquire(context.Background(), s.Store, spec); err != nil {
			t.Fatal(err)
		}
	}
	a := New(s)
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drive(a, a.Init())
	return a
}

// The README's "A study from start to end in the TUI (the demo)", step
// by step on a fresh demo: each step shows what the README says.
func TestReadmeWalkthrough(t *testing.T) {
	t.Parallel()
	a := walkthroughDemo(t, 120, 36)
	has := func(step string, want ...string) {
		t.Helper()
		f := paneText(frame(a))
		for _, w := range want {
			if !strings.Contains(f, w) {
				t.Fatalf("step %s: no %q in\n%s", step, w, frame(a))
			}
		}
	}
	onTab := func(step string, id tab.ID) {
		t.Helper()
		if a.tab != id {
			t.Fatalf("step %s: on tab %v, want %v\n%s", step, a.tab, id, frame(a))
		}
	}

	// 1. Data: the arrows browse; enter on a candidate inspects it, esc back.
	press(a, "1", "down", "right", "down", "enter")
	onTab("1", tab.Inspect)
	press(a, "esc")
	onTab("1 (esc)", tab.Data)

	// 2. Bank: the bank quality and a probe's request; s screens it and
	// shows each unit's ratio with its verdict.
	press(a, "2")
	has("2", "quality")
	press(a, "s")
	if a.bank.Screening() {
		t.Fatal("step 2: the screen did not finish")
	}
	has("2 (screened)", "screen: 12 contexts × 2 runs", "coverage 1.58 [1.38, 1.84] pass", "fail", "screened: 3 of 8 units pass")

	// 3. Run: the screen answered the whole study, so s shows the stored
	// answers: the final ratio panel and a response list where ↓ enter
	// inspects.
	press(a, "3", "s")
	lr := a.run.Live()
	if lr == nil || lr.Phase() != runtab.PhaseStored || lr.Applied() == 0 {
		t.Fatalf("step 3: live %+v", lr)
	}
	if a.run.Handle() != nil {
		t.Fatal("step 3: s started a run of nothing")
	}
	if p := a.run.Plan(); p == nil || p.Estimate.Requests != 2280 || p.Estimate.Send != 0 {
		t.Fatalf("step 3: plan %+v", p)
	}
	has("3", "Stored responses", "nothing left to send", "RMS ratio vs neutral", "4560/4560 answered")
	press(a, "down")
	r, ok := a.run.Selected()
	if !ok {
		t.Fatal("step 3: ↓ selects no response")
	}
	press(a, "enter")
	onTab("3 (enter)", tab.Inspect)
	if ins := a.insp.Inspection(); ins == nil || ins.Context != r.Context || ins.Cand != r.Candidate {
		t.Fatalf("step 3: inspecting %+v, want %s/%s", ins, r.Context, r.Candidate)
	}

	// 4. Select: r runs the probe selection: its subset-size curve.
	press(a, "4", "r")
	if rep := a.sel.Report(); rep == nil || len(rep.Curve) == 0 {
		t.Fatal("step 4: no selection curve")
	}

	// 5. Fit: f fits; the numbers the README quotes; m pairwise.
	press(a, "5", "f")
	has("5", "Vanilla 0.6612 [0.5834, 0.7351]", "PRISM 0.6917", "+0.0304 [-0.0202, +0.0918]",
		"α-PRISM 0.7167", "+0.0554 [-0.0046, +0.1183]", "Half-diff 0.6417", "-0.0196 [-0.1190, +0.0626]")
	press(a, "m")
	has("5 (m)", "Vanilla 0.7458", "PRISM 0.8000", "+0.0542 [+0.0125, +0.1042]")
	for i := 0; i < 8 && !strings.Contains(frame(a), "Fit · spearman"); i++ {
		press(a, "m") // back to the metric of the profiles the README quotes
	}
	press(a, "f")

	// 6. Profiles: grounding and helpfulness lead, coverage's shared e_k.
	press(a, "6")
	has("6", "grounding", "+0.0837", "helpfulness", "+0.0714", "-0.0940")

	// 7. Data, enter: the candidate's terms and ranks.
	press(a, "1", "enter")
	onTab("7", tab.Inspect)
	has("7", "rank")

	// 8. Compare: the demo's variants are judges to compare with.
	press(a, "8", "c")
	if a.cmp.Busy() || a.cmp.Err() != nil || len(a.cmp.Fits()) < 2 {
		t.Fatalf("step 8: busy %v, err %v, %d fits", a.cmp.Busy(), a.cmp.Err(), len(a.cmp.Fits()))
	}
	has("8", "offline-strict", "offline-verbose", "0.4575", "0.6410")
}
