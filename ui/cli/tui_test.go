package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

func TestOpenStudyDemo(t *testing.T) {
	s, cleanup, err := openStudy(context.Background(), "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(s.Store.Path())
	if !s.Demo || s.Dataset.Name != "demo" || s.Bank.Name != "quality" || len(s.Datasets) != 1 {
		t.Fatalf("demo study: demo %v dataset %s bank %s datasets %v", s.Demo, s.Dataset.Name, s.Bank.Name, s.Datasets)
	}
	cleanup()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the demo workspace %s outlives the TUI", dir)
	}
}

func TestOpenStudyWorkspace(t *testing.T) {
	ctx := context.Background()
	ws := filepath.Join(t.TempDir(), "new.db")
	// A new workspace is created, with no dataset yet.
	s, cleanup, err := openStudy(ctx, ws, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Demo || s.Dataset.NumCandidates() != 0 || len(s.Datasets) != 0 {
		t.Fatalf("new workspace: %+v", s)
	}
	cleanup()
	if _, err := os.Stat(ws); err != nil {
		t.Fatalf("workspace not created: %v", err)
	}
	// Two datasets: the first is opened and the chooser is due.
	for _, name := range []string{"a", "b"} {
		if code, _, errOut := clitest.RunPrism(t, "data", "import", "demo", "--name", name, "--workspace", ws); code != 0 {
			t.Fatal(errOut)
		}
	}
	s, cleanup, err = openStudy(ctx, ws, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Dataset.Name != "a" || s.PickedDataset || len(s.Datasets) != 2 {
		t.Errorf("two datasets: opened %s, picked %v, names %v", s.Dataset.Name, s.PickedDataset, s.Datasets)
	}
	cleanup()
	// --dataset picks one; an unknown name is an error naming it.
	s, cleanup, err = openStudy(ctx, ws, "b", "style7")
	if err != nil {
		t.Fatal(err)
	}
	if s.Dataset.Name != "b" || !s.PickedDataset || s.Bank.Name != "style7" || s.BankSource != "builtin:style7" {
		t.Errorf("--dataset b --bank style7: %s %v %s %s", s.Dataset.Name, s.PickedDataset, s.Bank.Name, s.BankSource)
	}
	cleanup()
	if _, _, err := openStudy(ctx, ws, "nope", ""); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown dataset: %v", err)
	}
	if _, _, err := openStudy(ctx, ws, "", "no-such-bank"); err == nil {
		t.Error("unknown bank: no error")
	}
}

func TestTUIUsage(t *testing.T) {
	code, _, errOut := clitest.RunPrism(t, "tui", "--bogus")
	if code != 2 || !strings.Contains(errOut, "--workspace FILE") {
		t.Errorf("bad flag: exit %d, stderr %q", code, errOut)
	}
	code, out, _ := clitest.RunPrism(t, "tui", "-h")
	if code != 0 || !strings.Contains(out, "embedded demo") || !strings.Contains(out, "-dataset") {
		t.Errorf("-h: exit %d, stdout %q", code, out)
	}
	code, _, errOut = clitest.RunPrism(t, "tui", "extra")
	if code != 2 || !strings.Contains(errOut, `unexpected argument "extra"`) {
		t.Errorf("extra argument: exit %d, stderr %q", code, errOut)
	}
}

// The TUI opens the workspace every command uses when it exists, and the
// demo, saying why, only when there is none.
func TestTUIWorkspaceChoice(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("PRISM_WORKSPACE", "")
	if path, label := tuiWorkspace(""); path != "" || label != "demo: no prism.db" {
		t.Errorf("no prism.db: %q, %q; want the demo", path, label)
	}
	if code, _, errOut := clitest.RunPrism(t, "data", "import", "demo", "--name", "mine"); code != 0 {
		t.Fatal(errOut)
	}
	path, label := tuiWorkspace("")
	if path != "prism.db" || label != "" {
		t.Errorf("with ./prism.db: %q, %q", path, label)
	}
	s, cleanup, err := openStudy(context.Background(), path, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Demo || s.Dataset.Name != "mine" {
		t.Errorf("./prism.db opened as demo %v, dataset %s", s.Demo, s.Dataset.Name)
	}
	cleanup()
	env := filepath.Join(dir, "env.db")
	t.Setenv("PRISM_WORKSPACE", env)
	if path, label := tuiWorkspace(""); path != "" || label != "demo: no $PRISM_WORKSPACE file" {
		t.Errorf("absent $PRISM_WORKSPACE: %q, %q", path, label)
	}
	if code, _, errOut := clitest.RunPrism(t, "data", "import", "demo"); code != 0 {
		t.Fatal(errOut)
	}
	if path, _ := tuiWorkspace(""); path != env {
		t.Errorf("$PRISM_WORKSPACE: %q, want %s", path, env)
	}
	if path, label := tuiWorkspace("other.db"); path != "other.db" || label != "" {
		t.Errorf("--workspace other.db: %q, %q", path, label)
	}
}

// TestDemoHoldsJudgesToCompare: the demo opens with the simulator's
// variants' answers stored, each its own judge, and their fits' correction
// profiles differ: the Compare tab has something to compare (issue: the
// first hour).
func TestDemoHoldsJudgesToCompare(t *testing.T) {
	ctx := context.Background()
	s, cleanup, err := openStudy(ctx, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	profiles := map[string]map[string]float64{}
	for _, name := range []string{"offline-strict", "offline-verbose"} {
		info, _, err := study.Pick(ctx, s.Store, s.Dataset.Name, name, s.Bank.Hash())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := s.Dataset.NumCandidates() * len(s.Bank.Conditions()); info.Planned != want {
			t.Fatalf("%s: %d requests planned, want %d", name, info.Planned, want)
		}
		res, err := study.Fit(ctx, s.Store, study.FitRequest{Study: info, Runs: study.Runs{All: true}, Options: calib.DefaultOptions(), Source: name})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		profiles[name] = map[string]float64{}
		for attr, p := range res.Report.Profiles {
			profiles[name][attr] = p.A.Mean
		}
	}
	opposed := 0
	for attr, a := range profiles["offline-strict"] {
		if b, ok := profiles["offline-verbose"][attr]; ok && a*b < 0 {
			opposed++
		}
	}
	t.Logf("a_k strict %v\na_k verbose %v", profiles["offline-strict"], profiles["offline-verbose"])
	if len(profiles["offline-strict"]) == 0 || opposed == 0 {
		t.Errorf("the variants' profiles never oppose (%d attributes)", len(profiles["offline-strict"]))
	}
}
