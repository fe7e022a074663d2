package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	datatab "github.com/prism-eval/prism/ui/tabs/data"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/model"
)

// importFile runs the import dialog on a directory holding one file:
// choose the jsonl format, pick the file.
func importFile(t *testing.T, a *App, name, content string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	a.importDir = dir
	press(a, "1", "i")
	im, ok := importerOf(a)
	if !ok {
		t.Fatal("i did not open the import dialog")
	}
	for im.Format() != "jsonl" {
		press(a, "down")
	}
	press(a, "enter") // the format
	if !strings.Contains(frame(a), name) {
		t.Fatalf("the file picker does not list %s:\n%s", name, frame(a))
	}
	press(a, "enter") // the file
	if im, ok := importerOf(a); ok && im.Step() == datatab.ImportName {
		press(a, "enter") // the name, as offered
	}
}

func storedDatasets(t *testing.T, a *App) []string {
	t.Helper()
	infos, err := a.study.Store.Datasets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range infos {
		names = append(names, in.Name)
	}
	return names
}

func TestImportErrorInPlace(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	drive(a, a.Init())
	// Line 2 has no candidate text.
	importFile(t, a, "bad.jsonl", `{"context": "c1", "candidate": "A", "text": "fine", "human": 3}
{"context": "c1", "candidate": "B", "human": 4}
`)
	im, ok := importerOf(a)
	if !ok {
		t.Fatal("a failed import closed the dialog")
	}
	if !strings.Contains(im.Err(), "bad.jsonl:2") {
		t.Errorf("error %q does not name file and line", im.Err())
	}
	if f := frame(a); !strings.Contains(f, "not imported") || !strings.Contains(f, "bad.jsonl:2") {
		t.Errorf("error not shown in the dialog:\n%s", f)
	}
	if got := storedDatasets(t, a); len(got) != 1 {
		t.Errorf("workspace holds %v after a failed import, want only demo", got)
	}
	press(a, "esc", "esc")
	if a.modal != nil {
		t.Fatal("esc esc did not close the dialog")
	}
}

func TestImportAndChoose(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	drive(a, a.Init())
	importFile(t, a, "tiny.jsonl", `{"context": "c1", "candidate": "A", "source": "S one.", "text": "Alpha text.", "human": 3}
{"context": "c1", "candidate": "B", "text": "Beta text.", "human": 4}
{"context": "c2", "candidate": "A", "source": "S two.", "text": "Gamma text.", "human": 2}
`)
	if a.modal != nil {
		t.Fatalf("dialog still open: %s", mustImporter(t, a).Err())
	}
	if a.study.Dataset.Name != "tiny" || a.study.Dataset.NumCandidates() != 3 {
		t.Fatalf("study dataset %s with %d candidates", a.study.Dataset.Name, a.study.Dataset.NumCandidates())
	}
	if got := storedDatasets(t, a); len(got) != 2 {
		t.Fatalf("workspace datasets %v", got)
	}
	f := frame(a)
	if !strings.Contains(f, "Contexts · 2") || !strings.Contains(f, "Alpha text.") {
		t.Fatalf("the Data tab does not show the import:\n%s", f)
	}
	// The generic task needs a bank with its prompt: the study switched
	// to the generic built-in, and the estimate follows the dataset (3
	// candidates × its conditions).
	if a.bank.Bank().Name != "generic" {
		t.Errorf("bank after importing a generic dataset: %s", a.bank.Bank().Name)
	}
	if a.run.Plan() == nil {
		t.Fatalf("no plan after import: %v", a.run.PlanErr())
	}
	if got, want := a.run.Plan().Estimate.Requests, 3*len(a.bank.Bank().Conditions()); got != want {
		t.Fatalf("plan after import: %d requests, want %d", got, want)
	}
	// d opens the chooser; picking demo switches back.
	press(a, "d")
	c, ok := chooserOf(a)
	if !ok || len(c.Names()) != 2 {
		t.Fatalf("d: modal %T", a.modal)
	}
	if !strings.Contains(frame(a), "Datasets in the workspace · 2") {
		t.Fatalf("chooser not drawn:\n%s", frame(a))
	}
	if c.Selected() != "tiny" {
		t.Fatalf("the chooser starts on %s, want the open dataset", c.Selected())
	}
	for i := 0; c.Selected() != "demo"; i++ {
		if i > 2 {
			t.Fatalf("demo not reachable in %v", c.Names())
		}
		press(a, "up")
	}
	press(a, "enter")
	if a.study.Dataset.Name != "demo" {
		t.Fatalf("chooser picked %s", a.study.Dataset.Name)
	}
}

// A workspace with several datasets opens on the chooser.
func TestChooserAtStart(t *testing.T) {
	t.Parallel()
	s := demoStudy(t)
	s.Datasets = []string{"demo", "other"}
	a := New(s)
	if _, ok := chooserOf(a); !ok {
		t.Fatal("no chooser at start")
	}
	press(a, "enter")
	if a.modal != nil || a.study.Dataset.Name != "demo" {
		t.Fatalf("after enter: modal %T dataset %s", a.modal, a.study.Dataset.Name)
	}
}

// A new, empty workspace opens on a screen that says what to do.
func TestEmptyWorkspace(t *testing.T) {
	t.Parallel()
	s := demoStudy(t)
	s.Dataset = &model.Dataset{Task: model.TaskGeneric}
	s.Datasets = nil
	s.Demo = false
	a := New(s)
	a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	drive(a, a.Init())
	for _, sc := range []struct{ key, want string }{
		{"1", "no dataset · i imports"},
		{"2", "no candidate selected"},
		{"3", "the dataset is empty"},
	} {
		press(a, sc.key)
		f := frame(a)
		if !strings.Contains(f, sc.want) {
			t.Errorf("screen %s lacks %q:\n%s", sc.key, sc.want, f)
		}
		checkFits(t, a, [2]int{80, 24}, "empty workspace screen "+sc.key)
	}
	if !strings.Contains(frame(a), "demo.db") {
		t.Error("the header does not name the workspace file")
	}
}

// importerOf is the import dialog, when it is open.
func importerOf(a *App) (*datatab.Importer, bool) {
	d, ok := a.modal.(tabDialog)
	if !ok {
		return nil, false
	}
	im, ok := d.Dialog.(*datatab.Importer)
	return im, ok
}

// mustImporter is the import dialog, failing t when it is not open.
func mustImporter(t *testing.T, a *App) *datatab.Importer {
	t.Helper()
	im, ok := importerOf(a)
	if !ok {
		t.Fatalf("no import dialog: modal %T", a.modal)
	}
	return im
}

// chooserOf is the dataset chooser, when it is open.
func chooserOf(a *App) (*datatab.Chooser, bool) {
	d, ok := a.modal.(tabDialog)
	if !ok {
		return nil, false
	}
	c, ok := d.Dialog.(*datatab.Chooser)
	return c, ok
}

// The import dialog's file step takes a typed path (issue 46): letters go
// to the path, not to the picker (h used to climb a directory), enter
// reads the file typed, a directory typed is listed, and a path that is
// not there is an error naming it.
func TestImportTypedPath(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "hello.jsonl"), []byte(tinyJSONL), 0o644); err != nil {
		t.Fatal(err)
	}
	a.importDir = dir
	press(a, "1", "i")
	im := mustImporter(t, a)
	for im.Format() != "jsonl" {
		press(a, "down")
	}
	press(a, "enter")
	typeText(a, "hjkl")
	if im.Dir() != dir || im.Step() != datatab.ImportPick || !strings.Contains(frame(a), "path › hjkl") {
		t.Fatalf("typing moved the picker to %s (step %d):\n%s", im.Dir(), im.Step(), frame(a))
	}
	press(a, "enter")
	if want := filepath.Join(dir, "hjkl") + ": no such file or directory"; im.Err() != want {
		t.Errorf("a missing path: error %q, want %q", im.Err(), want)
	}
	for range 4 {
		press(a, "backspace")
	}
	typeText(a, "sub")
	press(a, "enter")
	if im.Dir() != sub || !strings.Contains(frame(a), "hello.jsonl") {
		t.Fatalf("a directory typed: in %s:\n%s", im.Dir(), frame(a))
	}
	typeText(a, "hello.jsonl")
	press(a, "enter")
	if im.Step() != datatab.ImportName || im.Name() != "hello" {
		t.Fatalf("a file typed: step %d, name %q, err %q", im.Step(), im.Name(), im.Err())
	}
}

// The picker does not offer the open workspace's own files: its
// database, and SQLite's -wal and -shm beside it.
func TestImportHidesWorkspaceFiles(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	db := a.study.Store.Path()
	dir := filepath.Dir(db)
	for _, f := range []string{db + "-wal", db + "-shm"} {
		if _, err := os.Stat(f); os.IsNotExist(err) {
			if err := os.WriteFile(f, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "other.jsonl"), []byte(tinyJSONL), 0o644); err != nil {
		t.Fatal(err)
	}
	a.importDir = dir
	press(a, "1", "i", "enter")
	f := frame(a)
	if !strings.Contains(f, "other.jsonl") {
		t.Fatalf("the picker does not list the directory:\n%s", f)
	}
	if base := filepath.Base(db); strings.Contains(f, base) {
		t.Errorf("the picker lists the workspace's %s:\n%s", base, f)
	}
	for range 3 {
		press(a, "down")
	}
	if h := mustImporter(t, a).Highlighted(); h != filepath.Join(dir, "other.jsonl") {
		t.Errorf("highlighted %s, want other.jsonl, the only file", h)
	}
}
