package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Exports go beside the workspace's file by default, not into the
// directory prism was started from; the demo's workspace is temporary, so
// its exports go to the current directory.
func TestExportDirDefault(t *testing.T) {
	t.Parallel()
	path := copyFixture(t, fixtureDemo)
	s := studyOn(t, path)
	s.Demo = false
	want := filepath.Join(filepath.Dir(path), "prism-figures")
	if got := New(s).fit.ExportDir(); got != want {
		t.Errorf("export dir %q, want %q (beside the workspace)", got, want)
	}
	s.Demo = true
	if got := New(s).fit.ExportDir(); got != "prism-figures" {
		t.Errorf("demo export dir %q, want prism-figures", got)
	}
}

// e asks for the export directory, holding the last one; what is typed
// there is where the files go, and the next e offers it again; esc
// exports nothing.
func TestFitExportAsksDir(t *testing.T) {
	t.Parallel()
	a, _ := fittedDemo(t, 80, 24)
	a.fit.SetExportDir(filepath.Join(t.TempDir(), "first"))
	press(a, "e")
	if !a.fit.Editing() {
		t.Fatal("e did not ask for the directory")
	}
	if f := frame(a); !strings.Contains(f, "export to: "+a.fit.ExportDir()) {
		t.Fatalf("no prompt holding %s in\n%s", a.fit.ExportDir(), f)
	}
	press(a, "esc")
	if a.fit.Editing() || fitStatus(a) != "export canceled" {
		t.Fatalf("esc: editing %v, status %q", a.fit.Editing(), fitStatus(a))
	}
	if _, err := os.Stat(a.fit.ExportDir()); !os.IsNotExist(err) {
		t.Fatalf("esc exported to %s: %v", a.fit.ExportDir(), err)
	}

	other := filepath.Join(t.TempDir(), "chosen")
	press(a, "e", "ctrl+u")
	typeText(a, other)
	press(a, "enter")
	if fitStatusErr(a) || !strings.Contains(fitStatus(a), "exported 9 files") {
		t.Fatalf("status %q", fitStatus(a))
	}
	for _, name := range []string{"report.json", "profiles.png", "profiles.svg"} {
		if _, err := os.Stat(filepath.Join(other, name)); err != nil {
			t.Error(err)
		}
	}
	if a.fit.ExportDir() != other {
		t.Errorf("export dir %q, want the chosen %q kept for the next e", a.fit.ExportDir(), other)
	}
}
