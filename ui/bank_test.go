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
	orig := a.bank.bank.Hash()
	press(a, "2", "down", "enter") // accuracy:+ wording 1
	if !a.bank.editing {
		t.Fatal("enter did not open the editor")
	}
	press(a, "ctrl+u")
	typeText(a, "Weigh factual accuracy heavily.")
	press(a, "enter")
	b := a.bank.bank
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
	if a.bank.bank.Hash() != b.Hash() {
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
	if got, want := a.bank.selected().Instruction, long+"\nSecond line."; got != want {
		t.Fatalf("wording %q, want %q (status %q)", got, want, a.bank.status)
	}
	checkFits(t, a, [2]int{80, 24}, "a two-line wording")
	press(a, "c", "ctrl+u")
	a.Update(tea.PasteMsg{Content: "factual\naccuracy"})
	press(a, "enter")
	if got := a.bank.bank.Attributes[0].Clause; got != "factual accuracy" {
		t.Fatalf("clause %q", got)
	}
}

func TestBankEditRejectsInvalid(t *testing.T) {
	a := demoApp(t, 120, 36)
	orig := a.bank.bank.Hash()
	press(a, "2", "down", "enter", "ctrl+u", "enter") // empty wording
	if a.bank.bank.Hash() != orig {
		t.Fatal("an empty wording was accepted")
	}
	if !a.bank.statusErr || !strings.Contains(a.bank.status, "attributes[0].plus[0]") {
		t.Fatalf("status %q does not name the field", a.bank.status)
	}
	// The baseline has no instruction to edit.
	press(a, "g", "enter")
	if a.bank.editing || !strings.Contains(a.bank.status, "baseline") {
		t.Fatalf("baseline edit: editing %v, status %q", a.bank.editing, a.bank.status)
	}
}

func TestBankAddRemoveClause(t *testing.T) {
	a := demoApp(t, 120, 36)
	n := len(a.bank.bank.Attributes)
	press(a, "2", "a")
	typeText(a, "brevity: how short the summary is")
	press(a, "enter")
	b := a.bank.bank
	if len(b.Attributes) != n+1 || b.Attributes[n].Name != "brevity" {
		t.Fatalf("attributes after add: %d, last %+v", len(b.Attributes), b.Attributes[len(b.Attributes)-1])
	}
	if got := a.bank.selected().Probe; got != "brevity:+" {
		t.Errorf("selection after add: %s, want brevity:+", got)
	}
	if !strings.Contains(frame(a), "how short the summary is") {
		t.Error("the preview does not show the new attribute's instruction")
	}
	// A bad name is refused with the field named.
	press(a, "a")
	typeText(a, "Bad Name: x")
	press(a, "enter")
	if len(a.bank.bank.Attributes) != n+1 || !strings.Contains(a.bank.status, "name") {
		t.Fatalf("bad name: %d attributes, status %q", len(a.bank.bank.Attributes), a.bank.status)
	}
	// c edits the clause of every wording of the attribute.
	press(a, "c", "ctrl+u")
	typeText(a, "brevity")
	press(a, "enter")
	if a.bank.bank.Attributes[n].Clause != "brevity" {
		t.Fatalf("clause: %q", a.bank.bank.Attributes[n].Clause)
	}
	press(a, "x", "y")
	if len(a.bank.bank.Attributes) != n {
		t.Fatalf("x did not remove brevity: %d attributes", len(a.bank.bank.Attributes))
	}
	for _, c := range a.bank.conds {
		if strings.HasPrefix(c.Probe, "brevity") {
			t.Fatal("brevity conditions remain")
		}
	}
}

func TestBankSwitchAndSave(t *testing.T) {
	a := demoApp(t, 120, 36)
	press(a, "2", "b")
	all := banks.Builtins()
	if a.bank.bank.Name == "quality" || a.bank.bank.Name != nextAfter(all, "quality") {
		t.Fatalf("b switched to %s", a.bank.bank.Name)
	}
	path := filepath.Join(t.TempDir(), "mine.toml")
	press(a, "w", "ctrl+u")
	typeText(a, path)
	press(a, "enter")
	if !strings.Contains(a.bank.status, "saved "+path) {
		t.Fatalf("status %q", a.bank.status)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	back, err := banks.Parse(data, path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Hash() != a.bank.bank.Hash() {
		t.Error("the saved bank reads back with another hash")
	}
	// A save that fails says why.
	press(a, "w", "ctrl+u")
	typeText(a, filepath.Join(t.TempDir(), "no", "such", "dir.toml"))
	press(a, "enter")
	if !a.bank.statusErr || !strings.Contains(a.bank.status, "save:") {
		t.Fatalf("failed save: status %q", a.bank.status)
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
