package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
)

func TestBankEditWording(t *testing.T) {
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
	if a.study.Bank.Hash() != b.Hash() || a.run.plan == nil || a.run.plan.BankHash == orig {
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
