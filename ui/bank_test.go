package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib/order"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/store"
	banktab "github.com/prism-eval/prism/ui/tabs/bank"
	"github.com/prism-eval/prism/ui/widgets"
)

func TestBankEditWording(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	drive(a, a.Init())
	orig := a.bank.Bank().Hash()
	press(a, "2", "down", "enter") // accuracy:+ wording 1
	if !a.bank.Editing() {
		t.Fatal("enter did not open the editor")
	}
	press(a, "ctrl+u")
	typeText(a, "Weigh factual accuracy heavily.")
	press(a, "enter")
	b := a.bank.Bank()
	if b.Hash() == orig {
		t.Fatal("editing a wording kept the hash")
	}
	// Only that wording changed: the attribute's + wordings became
	// explicit, the second still the template's.
	tmpl, _ := banks.Builtin("quality")
	want := tmpl.Attributes[0].Wordings(tmpl.Templates, true)
	want[0] = "Weigh factual accuracy heavily."
	got := b.Attributes[0].Plus
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("plus wordings %q, want %q", got, want)
	}
	f := frame(a)
	for _, s := range []string{"(edited)", shortHash(b.Hash()), "new version " + b.Hash()[:7] + " (was " + orig[:7] + ")", "Weigh factual accuracy heavily."} {
		if !strings.Contains(f, s) {
			t.Errorf("frame lacks %q:\n%s", s, f)
		}
	}
	// The study and the Run tab's plan follow the new version.
	if a.study.Bank.Hash() != b.Hash() || a.run.Plan() == nil || a.run.Plan().BankHash == orig {
		t.Error("the study or the plan still use the old bank")
	}
	// esc drops an edit.
	press(a, "enter", "ctrl+u")
	typeText(a, "dropped")
	press(a, "esc")
	if a.bank.Bank().Hash() != b.Hash() {
		t.Error("esc kept the typed wording")
	}
}

// The wording editor shows a long wording whole, wrapped; alt+enter puts
// a newline in a wording (banks allow them), and a one-line value (a
// clause) turns a pasted newline into a space.
func TestBankEditMultiline(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 80, 24)
	drive(a, a.Init())
	long := "Weigh factual accuracy far more heavily than anything else when you score this summary."
	press(a, "2", "down", "enter", "ctrl+u")
	typeText(a, long)
	f := frame(a)
	for _, w := range []string{"Weigh", "accuracy", "anything", "summary."} {
		if !strings.Contains(f, w) {
			t.Errorf("the editor hides %q of the wording:\n%s", w, f)
		}
	}
	a.Update(tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt})
	typeText(a, "Second line.")
	press(a, "enter")
	if got, want := a.bank.Condition().Instruction, long+"\nSecond line."; got != want {
		t.Fatalf("wording %q, want %q (status %q)", got, want, bankStatus(a))
	}
	checkFits(t, a, [2]int{80, 24}, "a two-line wording")
	press(a, "c", "ctrl+u")
	a.Update(tea.PasteMsg{Content: "factual\naccuracy"})
	press(a, "enter")
	if got := a.bank.Bank().Attributes[0].Clause; got != "factual accuracy" {
		t.Fatalf("clause %q", got)
	}
}

func TestBankEditRejectsInvalid(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	orig := a.bank.Bank().Hash()
	press(a, "2", "down", "enter", "ctrl+u", "enter") // empty wording
	if a.bank.Bank().Hash() != orig {
		t.Fatal("an empty wording was accepted")
	}
	if !bankStatusErr(a) || !strings.Contains(bankStatus(a), "attributes[0].plus[0]") {
		t.Fatalf("status %q does not name the field", bankStatus(a))
	}
	// The baseline has no instruction to edit.
	press(a, "g", "enter")
	if a.bank.Editing() || !strings.Contains(bankStatus(a), "baseline") {
		t.Fatalf("baseline edit: editing %v, status %q", a.bank.Editing(), bankStatus(a))
	}
}

func TestBankAddRemoveClause(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	n := len(a.bank.Bank().Attributes)
	press(a, "2", "a")
	typeText(a, "brevity: how short the summary is")
	press(a, "enter")
	b := a.bank.Bank()
	if len(b.Attributes) != n+1 || b.Attributes[n].Name != "brevity" {
		t.Fatalf("attributes after add: %d, last %+v", len(b.Attributes), b.Attributes[len(b.Attributes)-1])
	}
	if got := a.bank.Condition().Probe; got != "brevity:+" {
		t.Errorf("selection after add: %s, want brevity:+", got)
	}
	if !strings.Contains(frame(a), "how short the summary is") {
		t.Error("the preview does not show the new attribute's instruction")
	}
	// A bad name is refused with the field named.
	press(a, "a")
	typeText(a, "Bad Name: x")
	press(a, "enter")
	if len(a.bank.Bank().Attributes) != n+1 || !strings.Contains(bankStatus(a), "name") {
		t.Fatalf("bad name: %d attributes, status %q", len(a.bank.Bank().Attributes), bankStatus(a))
	}
	// c edits the clause of every wording of the attribute.
	press(a, "c", "ctrl+u")
	typeText(a, "brevity")
	press(a, "enter")
	if a.bank.Bank().Attributes[n].Clause != "brevity" {
		t.Fatalf("clause: %q", a.bank.Bank().Attributes[n].Clause)
	}
	press(a, "x", "y")
	if len(a.bank.Bank().Attributes) != n {
		t.Fatalf("x did not remove brevity: %d attributes", len(a.bank.Bank().Attributes))
	}
	for _, c := range a.bank.Conditions() {
		if strings.HasPrefix(c.Probe, "brevity") {
			t.Fatal("brevity conditions remain")
		}
	}
}

func TestBankSwitchAndSave(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	press(a, "2", "b")
	all := banks.Builtins()
	if a.bank.Bank().Name == "quality" || a.bank.Bank().Name != nextAfter(all, "quality") {
		t.Fatalf("b switched to %s", a.bank.Bank().Name)
	}
	path := filepath.Join(t.TempDir(), "mine.toml")
	press(a, "w", "ctrl+u")
	typeText(a, path)
	press(a, "enter")
	if !strings.Contains(bankStatus(a), "saved "+path) {
		t.Fatalf("status %q", bankStatus(a))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	back, err := banks.Parse(data, path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Hash() != a.bank.Bank().Hash() {
		t.Error("the saved bank reads back with another hash")
	}
	// A save that fails says why.
	press(a, "w", "ctrl+u")
	typeText(a, filepath.Join(t.TempDir(), "no", "such", "dir.toml"))
	press(a, "enter")
	if !bankStatusErr(a) || !strings.Contains(bankStatus(a), "save:") {
		t.Fatalf("failed save: status %q", bankStatus(a))
	}
}

func nextAfter(all []*banks.Bank, name string) string {
	for i, b := range all {
		if b.Name == name {
			return all[(i+1)%len(all)].Name
		}
	}
	return ""
}

// bankStatus and bankStatusErr are the Bank tab's status line and whether
// it is an error; bankPreview and bankPreviewErr, its preview.
func bankStatus(a *App) string  { s, _ := a.bank.Status(); return s }
func bankStatusErr(a *App) bool { _, e := a.bank.Status(); return e }
func bankPreview(a *App) []string {
	p, _ := a.bank.Preview()
	return p
}
func bankPreviewErr(a *App) error {
	_, err := a.bank.Preview()
	return err
}

// The Bank tab's probe diagnostics (wordingpanel).

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
	t.Parallel()
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

// The Bank tab's presentation-order section.

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

// The Bank tab shows the presentation-order section beside the signal
// panel once the workspace holds a listwise study of the bank, with the
// numbers prism diagnose order computes (200 resamples).
func TestGoldenOrderPanel(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 160, 48)
	drive(a, a.Init())
	press(a, "2")
	if f := frame(a); strings.Contains(f, "Presentation order") {
		t.Fatalf("order section without a listwise study:\n%s", f)
	}
	st := a.study.Store
	acquireOrders(t, st, "offline", 0)
	acquireOrders(t, st, "offline-batched", 8)
	k, _ := a.currentKey()
	a.versions.Bump(k) // answers were added behind the App's back
	a.bank.DropSignal(k)
	press(a, "1", "2")
	if a.bank.OrderReport() == nil {
		t.Fatal("section not computed")
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
	opts.Bootstrap = banktab.OrderResamples
	rep, err := order.Diagnostics(data, opts)
	if err != nil {
		t.Fatal(err)
	}
	f := frame(a)
	for _, want := range []string{
		"Presentation order · offline-batched, 8 orders × 2 runs · vs offline",
		fmt.Sprintf("1: %s", widgets.Num(*rep.Curve[0].Value)),
		fmt.Sprintf("reversed %s [%s, %s]", widgets.Num(*rep.KendallRev.Value), widgets.Num(rep.KendallRev.CI[0]), widgets.Num(rep.KendallRev.CI[1])),
		fmt.Sprintf("pointwise %s", widgets.Num(*rep.Spearman[0].Spearman)),
	} {
		if !strings.Contains(f, want) {
			t.Errorf("frame lacks %q:\n%s", want, f)
		}
	}
	g := goldenFrames{}
	g.capture(a, "bank-order")
	g.check(t)
}
