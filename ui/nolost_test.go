package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	banktab "github.com/prism-eval/prism/ui/tabs/bank"
	"github.com/prism-eval/prism/ui/widgets"

	"github.com/prism-eval/prism/ui/tab"
	datatab "github.com/prism-eval/prism/ui/tabs/data"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/model"
)

// Issue 17, "No lost work": what could drop work asks first, says what is
// kept, or can be named.

// editWording edits the first + wording of accuracy on the Bank tab.
func editFirstWording(a *App, text string) {
	press(a, "2", "g", "down", "enter", "ctrl+u")
	typeText(a, text)
	press(a, "enter")
}

// question is what the open confirmation says, its lines joined (the
// frame wraps them).
func question(a *App) string {
	switch m := a.modal.(type) {
	case *confirm:
		return strings.Join(m.lines, " ")
	case tabDialog:
		if c, ok := m.Dialog.(*widgets.Confirm); ok {
			return strings.Join(c.Lines, " ")
		}
	case confirmQuit:
		lines, _, _ := a.quitText()
		return strings.Join(lines, " ")
	}
	return ""
}

// x asks before removing an attribute with all its conditions; n keeps it.
func TestBankRemoveAsks(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	n := len(a.bank.Bank().Attributes)
	press(a, "2", "down", "x")
	if question(a) == "" {
		t.Fatalf("x did not ask: modal %T", a.modal)
	}
	if q := question(a); !strings.Contains(q, "Remove the attribute accuracy and its 4 conditions from the bank?") || !strings.Contains(frame(a), "Remove the attribute accuracy") {
		t.Fatalf("the question does not name what goes: %q\n%s", q, frame(a))
	}
	press(a, "n")
	if a.modal != nil || len(a.bank.Bank().Attributes) != n {
		t.Fatalf("n: modal %T, %d attributes", a.modal, len(a.bank.Bank().Attributes))
	}
	// The wheel cannot move what y removes: the question's condition goes.
	press(a, "x")
	a.bank.Move(5)
	press(a, "y")
	if len(a.bank.Bank().Attributes) != n-1 || a.bank.Bank().Attributes[0].Name == "accuracy" {
		t.Fatalf("y removed the wrong thing: %+v", a.bank.Bank().Attributes[0])
	}
	// A neutral clause is one condition; the baseline cannot go.
	press(a, "G", "x")
	if q := question(a); !strings.Contains(q, "Remove the neutral clause honest and its condition") {
		t.Fatalf("neutral: %q", q)
	}
	press(a, "esc", "g", "x")
	if a.modal != nil || !strings.Contains(bankStatus(a), "baseline cannot be removed") {
		t.Fatalf("baseline: modal %T, status %q", a.modal, bankStatus(a))
	}
}

// b and q go straight on without unsaved edits, and ask with them; a save
// makes the bank saved again.
func TestBankUnsavedWarns(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	press(a, "2", "b")
	if a.modal != nil || a.bank.Bank().Name != "style8" {
		t.Fatalf("b without edits: modal %T, bank %s", a.modal, a.bank.Bank().Name)
	}
	if !press(a, "q") {
		t.Fatal("q without edits did not quit")
	}

	a = demoApp(t, 120, 36)
	editFirstWording(a, "Weigh factual accuracy heavily.")
	if !a.bank.Unsaved() {
		t.Fatal("an edited bank is not unsaved")
	}
	edited := a.bank.Bank().Hash()
	press(a, "b")
	if q := question(a); !strings.Contains(q, "has unsaved edits. Switch to style8 and drop them?") {
		t.Fatalf("b with edits did not warn: %q\n%s", q, frame(a))
	}
	press(a, "n")
	if a.modal != nil || a.bank.Bank().Hash() != edited {
		t.Fatal("n did not keep the edited bank")
	}
	if press(a, "q") {
		t.Fatal("q with unsaved edits quit")
	}
	if q := question(a); !strings.Contains(q, "The bank quality-edited ("+edited[:7]+") has unsaved edits. Quit without saving them?") {
		t.Fatalf("q with edits did not warn: %q\n%s", q, frame(a))
	}
	press(a, "n")
	if a.modal != nil {
		t.Fatal("n did not close the quit dialog")
	}
	// ctrl+c asks too.
	press(a, "ctrl+c")
	if _, ok := a.modal.(confirmQuit); !ok {
		t.Fatalf("ctrl+c with edits: modal %T", a.modal)
	}
	press(a, "esc")
	// y on b drops the edits.
	press(a, "b", "y")
	if a.bank.Bank().Name != "style8" || a.bank.Unsaved() {
		t.Fatalf("y on b: bank %s, unsaved %v", a.bank.Bank().Name, a.bank.Unsaved())
	}

	// Once saved, the bank is not unsaved: b and q go straight on.
	a = demoApp(t, 120, 36)
	editFirstWording(a, "Weigh factual accuracy heavily.")
	press(a, "w", "ctrl+u")
	typeText(a, filepath.Join(t.TempDir(), "mine.toml"))
	press(a, "enter")
	if a.bank.Unsaved() {
		t.Fatalf("saved bank still unsaved: %q", bankStatus(a))
	}
	if !press(a, "q") {
		t.Fatal("q after a save asked")
	}
	// y on the quit dialog quits.
	a = demoApp(t, 120, 36)
	editFirstWording(a, "Weigh factual accuracy heavily.")
	press(a, "q")
	if !press(a, "y") {
		t.Fatal("y on the quit dialog did not quit")
	}
}

// An edited built-in is named apart from it, the save offers that name,
// the file's header points at a section of docs/banks.md that exists, and
// a file that exists is replaced only after asking.
func TestBankSaveNameAndHeader(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	orig := a.bank.Bank().Attributes[0].Wordings(a.bank.Bank().Templates, true)[0]
	editFirstWording(a, "Weigh factual accuracy heavily.")
	name := a.bank.Bank().Name
	if name != "quality-edited" {
		t.Fatalf("edited bank named %q", name)
	}
	if _, err := banks.Builtin(name); err == nil {
		t.Fatalf("%s is a built-in's name", name)
	}
	if a.study.Bank.Name != name || !strings.Contains(frame(a), "bank quality-edited") {
		t.Error("the study or the header keeps the built-in's name")
	}
	press(a, "w")
	if got := a.bank.EditValue(); got != "quality-edited.toml" {
		t.Fatalf("save offers %q", got)
	}
	path := filepath.Join(t.TempDir(), "quality-edited.toml")
	press(a, "ctrl+u")
	typeText(a, path)
	press(a, "enter")
	if !strings.Contains(bankStatus(a), "saved "+path+" (bank quality-edited") {
		t.Fatalf("status %q", bankStatus(a))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "# prism probe bank quality-edited") || !strings.Contains(string(data), banktab.FileDocs) {
		t.Fatalf("header:\n%s", data[:200])
	}
	docs, err := os.ReadFile(filepath.Join("..", "docs", "banks.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(docs), "\n## Bank file format (TOML)\n") || !strings.Contains(banktab.FileDocs, `"Bank file format (TOML)"`) {
		t.Fatal("the header's section is not a heading of docs/banks.md")
	}
	back, err := banks.Parse(data, path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Name != name || back.Hash() != a.bank.Bank().Hash() {
		t.Fatalf("read back as %s %.7s, want %s %.7s", back.Name, back.Hash(), name, a.bank.Bank().Hash())
	}
	// The same file again: asked; n leaves it, y replaces it.
	editFirstWording(a, "Weigh factual accuracy very heavily.")
	press(a, "w", "ctrl+u")
	typeText(a, path)
	press(a, "enter")
	if q := question(a); !strings.Contains(q, path+" exists. Replace it with the bank quality-edited?") {
		t.Fatalf("no replace question: %q", q)
	}
	press(a, "n")
	if now, _ := os.ReadFile(path); string(now) != string(data) || !a.bank.Unsaved() {
		t.Fatal("n changed the file or the bank's saved state")
	}
	press(a, "w", "ctrl+u")
	typeText(a, path)
	press(a, "enter", "y")
	if now, _ := os.ReadFile(path); !strings.Contains(string(now), "very heavily") || a.bank.Unsaved() {
		t.Fatalf("y did not replace the file: %q", bankStatus(a))
	}
	// Editing it back to the built-in's wording gives the name back.
	editFirstWording(a, orig)
	if a.bank.Bank().Name != "quality" {
		t.Fatalf("the built-in's wording again, named %q", a.bank.Bank().Name)
	}
}

// The preview follows the wording and the clause as they are typed; esc
// gives the bank's back.
func TestBankPreviewWhileTyping(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	drive(a, a.Init())
	hash := a.bank.Bank().Hash()
	preview := func() string { return strings.Join(bankPreview(a), " ") }
	press(a, "2", "down", "enter", "ctrl+u")
	typeText(a, "Weigh zebra stripes heavily.")
	if !strings.Contains(preview(), "Weigh zebra stripes heavily.") {
		t.Fatalf("the preview does not show the typed wording:\n%s", preview())
	}
	if a.bank.Bank().Hash() != hash {
		t.Fatal("typing changed the bank before enter")
	}
	press(a, "ctrl+u")
	if bankPreviewErr(a) == nil || !strings.Contains(frame(a), "as typed:") {
		t.Fatalf("an empty wording: preview error %v", bankPreviewErr(a))
	}
	press(a, "esc")
	if bankPreviewErr(a) != nil || strings.Contains(preview(), "zebra") {
		t.Fatal("esc kept the typed wording in the preview")
	}
	press(a, "c", "ctrl+u")
	typeText(a, "zebra-ness")
	if !strings.Contains(preview(), "zebra-ness") {
		t.Fatalf("the preview does not show the typed clause:\n%s", preview())
	}
	press(a, "esc")
}

// The quit dialog says what happens to the answers: kept in a workspace
// file, deleted with the demo's temporary workspace.
func TestQuitTextDemoVsKept(t *testing.T) {
	t.Parallel()
	for _, temp := range []bool{false, true} {
		t.Run(fmt.Sprint("temporary=", temp), func(t *testing.T) {
			s := demoStudy(t)
			s.Temporary = temp
			a := New(s)
			a.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
			drive(a, a.Init())
			g := startHeld(t, a, 0)
			defer close(g.release)
			defer a.run.Handle().Cancel()
			press(a, "q")
			f := frame(a)
			kept, gone := strings.Contains(f, "Finished answers are stored; rerun to resume."), strings.Contains(f, "workspace is temporary: it is deleted on")
			if kept == temp || gone != temp {
				t.Fatalf("temporary %v: the dialog says\n%s", temp, f)
			}
		})
	}
}

// The import dialog goes up past its start directory, even from ".".
func TestImportParentDirectory(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "up.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a.importDir = sub
	press(a, "1", "i", "enter")
	im := mustImporter(t, a)
	press(a, "left") // h is typed into the path (issue 46)
	if im.Dir() != dir || !strings.Contains(frame(a), "up.jsonl") {
		t.Fatalf("left went to %s:\n%s", im.Dir(), frame(a))
	}
	press(a, "esc", "esc")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	a.importDir = "."
	press(a, "i", "enter", "left")
	if got := mustImporter(t, a).Dir(); got != filepath.Dir(wd) {
		t.Fatalf("left from . went to %s, want %s", got, filepath.Dir(wd))
	}
}

const tinyJSONL = `{"context": "c1", "candidate": "A", "source": "S one.", "text": "Alpha text.", "human": 3}
{"context": "c1", "candidate": "B", "text": "Beta text.", "human": 4}
`

// pickFile opens the import dialog on a directory holding one file and
// picks it with the jsonl format: the dialog then asks for the name.
func pickFile(t *testing.T, a *App, name, content string) *datatab.Importer {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	a.importDir = dir
	press(a, "1", "i")
	im := mustImporter(t, a)
	for im.Format() != "jsonl" {
		press(a, "down")
	}
	press(a, "enter", "enter")
	return im
}

// The dialog names the dataset: the file's name, made a valid name, by
// default; an edited name is the stored one; an invalid one is refused
// and its error goes at the next key.
func TestImportNamesDataset(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	im := pickFile(t, a, "My Tiny.jsonl", tinyJSONL)
	if im.Step() != datatab.ImportName || im.Name() != "my-tiny" {
		t.Fatalf("step %d, name %q", im.Step(), im.Name())
	}
	if f := frame(a); !strings.Contains(f, "Name of the dataset") || !strings.Contains(f, "my-tiny") {
		t.Fatalf("no name field:\n%s", f)
	}
	press(a, "ctrl+u")
	typeText(a, "Bad Name")
	press(a, "enter")
	if !strings.Contains(frame(a), model.NameRule[:20]) || a.modal == nil {
		t.Fatalf("an invalid name was not refused:\n%s", frame(a))
	}
	press(a, "ctrl+u")
	if im.Err() != "" || strings.Contains(frame(a), "not imported") {
		t.Fatal("the old error stayed after a key")
	}
	typeText(a, "renamed")
	press(a, "enter")
	if a.modal != nil || a.study.Dataset.Name != "renamed" {
		t.Fatalf("modal %T, dataset %s", a.modal, a.study.Dataset.Name)
	}
	if got := storedDatasets(t, a); strings.Join(got, ",") != "demo,renamed" {
		t.Fatalf("stored %v", got)
	}
}

// A name the workspace holds is replaced only after asking; n goes back
// to the name, y replaces.
func TestImportOffersReplace(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	im := pickFile(t, a, "demo.jsonl", tinyJSONL)
	press(a, "enter")
	if im.Step() != datatab.ImportReplace || !strings.Contains(frame(a), `already holds a dataset named "demo"`) {
		t.Fatalf("no replace offer (step %d):\n%s", im.Step(), frame(a))
	}
	press(a, "n")
	if im.Step() != datatab.ImportName || a.study.Dataset.NumCandidates() != 60 {
		t.Fatalf("n: step %d", im.Step())
	}
	press(a, "enter", "y")
	if a.modal != nil || a.study.Dataset.Name != "demo" || a.study.Dataset.NumCandidates() != 2 {
		t.Fatalf("y: modal %T, dataset %s with %d", a.modal, a.study.Dataset.Name, a.study.Dataset.NumCandidates())
	}
	if got := storedDatasets(t, a); len(got) != 1 || len(a.study.Datasets) != 1 {
		t.Fatalf("stored %v, study lists %v", got, a.study.Datasets)
	}
}

// With a run acquiring the dataset, the store refuses to replace it and
// the dialog shows why, naming the run.
func TestImportReplaceBusy(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	drive(a, a.Init())
	g := startHeld(t, a, 0)
	defer close(g.release)
	defer a.run.Handle().Cancel()
	im := pickFile(t, a, "demo.jsonl", tinyJSONL)
	press(a, "enter", "y")
	if a.modal == nil || im.Step() != datatab.ImportName || !strings.Contains(im.Err(), "being acquired by a prism run") {
		t.Fatalf("step %d, error %q", im.Step(), im.Err())
	}
	if f := frame(a); !strings.Contains(f, "not imported: dataset \"demo\" is being acquired") {
		t.Fatalf("the refusal is not shown:\n%s", f)
	}
}

// A failed file's error goes at the next key.
func TestImportErrorCleared(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	im := pickFile(t, a, "bad.jsonl", `{"context": "c1", "candidate": "B", "human": 4}`+"\n")
	if im.Step() != datatab.ImportPick || !strings.Contains(frame(a), "not imported") {
		t.Fatalf("step %d, error %q", im.Step(), im.Err())
	}
	press(a, "down")
	if im.Err() != "" || strings.Contains(frame(a), "not imported") {
		t.Fatal("the error stayed after a key")
	}
}

// The new dialogs at 80×24 and 120×36.
func TestGoldenNoLostWork(t *testing.T) {
	t.Parallel()
	edit := func(t *testing.T, a *App) { editFirstWording(a, "Weigh factual accuracy heavily.") }
	for _, size := range [][2]int{{80, 24}, {120, 36}} {
		for _, sc := range []struct {
			name string
			do   func(t *testing.T, a *App)
		}{
			{"remove-confirm", func(t *testing.T, a *App) { press(a, "2", "down", "x") }},
			{"next-bank-unsaved", func(t *testing.T, a *App) { edit(t, a); press(a, "b") }},
			{"quit-unsaved", func(t *testing.T, a *App) { edit(t, a); press(a, "q") }},
			{"import-name", func(t *testing.T, a *App) { pickFile(t, a, "tiny.jsonl", tinyJSONL) }},
			{"import-replace", func(t *testing.T, a *App) { pickFile(t, a, "demo.jsonl", tinyJSONL); press(a, "enter") }},
		} {
			t.Run(fmt.Sprintf("%s-%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				a := demoApp(t, size[0], size[1])
				drive(a, a.Init())
				sc.do(t, a)
				if a.modal == nil {
					t.Fatal("no dialog")
				}
				checkFits(t, a, size, sc.name)
				golden.RequireEqual(t, frame(a))
			})
		}
	}
}

// Opening a dataset the edited bank has no prompt for would replace the
// bank: it asks first, and n keeps both the dataset and the edits.
func TestDatasetSwitchWarnsAboutUnsavedBank(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	if _, ok := a.bank.Bank().Tasks[model.TaskDialogue]; ok {
		t.Fatal("the test wants a bank without the dialogue prompt")
	}
	editFirstWording(a, "Weigh factual accuracy heavily.")
	edited, before := a.bank.Bank().Hash(), a.study.Dataset
	chat := &model.Dataset{Name: "chat", Format: "jsonl", Task: model.TaskDialogue, Metric: model.MetricSpearman,
		Contexts: []model.Context{{ID: "c1", Source: "Hi.", Candidates: []model.Candidate{{ID: "a", Text: "Hello.", Human: 1}, {ID: "b", Text: "Hey.", Human: 2}}}}}
	a.Update(tab.DatasetMsg{Dataset: chat})
	if q := question(a); !strings.Contains(q, "has unsaved edits and no dialogue prompt") {
		t.Fatalf("no warning: %q\n%s", q, frame(a))
	}
	press(a, "n")
	if a.modal != nil || a.study.Dataset != before || a.bank.Bank().Hash() != edited {
		t.Fatalf("n changed the study: dataset %s, bank %.7s", a.study.Dataset.Name, a.bank.Bank().Hash())
	}
	a.Update(tab.DatasetMsg{Dataset: chat})
	press(a, "y")
	if a.study.Dataset != chat || a.bank.Bank().Hash() == edited {
		t.Fatalf("y did not open the dataset with a bank that has its prompt: %s, %.7s", a.study.Dataset.Name, a.bank.Bank().Hash())
	}
}
