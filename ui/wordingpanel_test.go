package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge/engine"
)

// acquire answers every condition of b on the App's dataset with the
// offline judge, repeats runs, as prism run does.
func acquire(t *testing.T, a *App, b *banks.Bank, repeats int) {
	t.Helper()
	ctx := t.Context()
	spec := engine.Spec{Dataset: a.study.Dataset, Bank: b, JudgeName: "offline", Config: engineDefaults(), Repeats: repeats}
	p, err := engine.NewPlan(ctx, a.study.Store, spec)
	if err != nil {
		t.Fatal(err)
	}
	js, err := engine.NewJudges(spec.Config, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := engine.Start(ctx, a.study.Store, js, p, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range r.Events() {
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestDiagPanel: on the Bank tab, the ladder bank's stored answers (2
// runs) show the wording and joint diagnostics below the signal panel,
// computed in a tea.Cmd; the quality bank, with answers on 1–10 and on
// 0–100, shows the resolution line; golden frames at both sizes.
func TestDiagPanel(t *testing.T) {
	a := demoApp(t, 160, 48)
	drive(a, a.Init())
	ladder, _ := banks.Builtin("ladder")
	quality, _ := banks.Builtin("quality")
	fine := quality.Clone()
	if err := fine.Rescale("news-summary", 0, 100); err != nil {
		t.Fatal(err)
	}
	acquire(t, a, ladder, 2)
	acquire(t, a, quality, 1)
	acquire(t, a, fine, 1)

	var g goldenFrames
	press(a, "2")
	f := frame(a)
	if !strings.Contains(f, "resolution 1–10 → 0–100: tied pairs") || strings.Contains(f, "wording  level") {
		t.Errorf("quality bank: want the resolution line only:\n%s", f)
	}
	g.capture(a, "quality")
	for i := 0; i < 10 && a.bank.Bank().Name != "ladder"; i++ {
		press(a, "b")
	}
	if a.bank.Bank().Name != "ladder" {
		t.Fatalf("bank %s, want ladder", a.bank.Bank().Name)
	}
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 48}) // capture left it at the first golden size
	f = frame(a)
	for _, want := range []string{"Probe diagnostics", "wording  level", "slightly", "much", "joint    15 pairs: projection"} {
		if !strings.Contains(f, want) {
			t.Errorf("ladder bank: the panel lacks %q:\n%s", want, f)
		}
	}
	g.capture(a, "ladder")
	g.check(t)
	// A level condition's wording is a bank-wide template: enter says so
	// instead of editing one condition.
	for i := 0; i < 18; i++ {
		press(a, "down")
	}
	if c := a.bank.Condition(); c.Probe != "length:control" {
		t.Fatalf("cursor on %s, want length:control", c.Probe)
	}
	press(a, "enter")
	if a.bank.Editing() || !strings.Contains(bankStatus(a), "bank-wide templates") {
		t.Errorf("enter on a level condition: editing %v, status %q", a.bank.Editing(), bankStatus(a))
	}
}
