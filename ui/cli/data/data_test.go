package data

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/shareddata"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

func TestDataImportListRemove(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "study.db")
	code, out, errOut := clitest.RunPrism(t, "data", "import", "demo", "--workspace", ws)
	if code != 0 {
		t.Fatalf("data import demo: exit %d: %s", code, errOut)
	}
	demo := datasets.Demo()
	if !strings.Contains(out, "imported demo: 12 contexts") || len(demo.Contexts) != 12 {
		t.Errorf("import output %q", out)
	}
	// Same name again without --replace fails and says how to proceed.
	code, _, errOut = clitest.RunPrism(t, "data", "import", "demo", "--workspace", ws)
	if code != 1 || !strings.Contains(errOut, "--replace") {
		t.Errorf("second import: exit %d, stderr %q; want 1 and a hint about --replace", code, errOut)
	}
	// Flags may come before, between and after the positional arguments.
	if code, _, errOut = clitest.RunPrism(t, "data", "import", "--name", "demo2", "--workspace", ws, "demo"); code != 0 {
		t.Fatalf("import --name demo2: exit %d: %s", code, errOut)
	}
	if code, _, errOut = clitest.RunPrism(t, "data", "import", "demo", "--replace", "--workspace", ws); code != 0 {
		t.Fatalf("import --replace: exit %d: %s", code, errOut)
	}
	code, out, errOut = clitest.RunPrism(t, "data", "ls", "--workspace", ws)
	if code != 0 {
		t.Fatalf("data ls: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "NAME") ||
		!strings.HasPrefix(lines[1], "demo ") || !strings.HasPrefix(lines[2], "demo2 ") {
		t.Fatalf("data ls output:\n%s", out)
	}
	wantFields := []string{"demo", "demo", model.TaskNewsSummary, model.MetricSpearman, "12", "60"}
	if f := strings.Fields(lines[1]); strings.Join(f[:6], " ") != strings.Join(wantFields, " ") {
		t.Errorf("data ls row %q, want it to start with %v", lines[1], wantFields)
	}
	if code, _, errOut = clitest.RunPrism(t, "data", "rm", "demo2", "--workspace", ws); code != 0 {
		t.Fatalf("data rm: exit %d: %s", code, errOut)
	}
	_, out, _ = clitest.RunPrism(t, "data", "ls", "--workspace", ws)
	if strings.Contains(out, "demo2") {
		t.Errorf("demo2 still listed after rm:\n%s", out)
	}
}

func TestDataCommandErrors(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "study.db")
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"context\": \"c\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"data"}, 2, "usage"},
		{[]string{"data", "frobnicate"}, 2, "unknown subcommand"},
		{[]string{"data", "import", "csv"}, 2, "FORMAT FILE"},
		{[]string{"data", "import", "nosuchformat", bad, "--workspace", ws}, 1, "nosuchformat"},
		{[]string{"data", "import", "jsonl", filepath.Join(dir, "missing.jsonl"), "--workspace", ws}, 1, "missing.jsonl"},
		{[]string{"data", "import", "jsonl", bad, "--workspace", ws}, 1, "bad.jsonl"},
		{[]string{"data", "ls", "--workspace", filepath.Join(dir, "none.db")}, 1, "no workspace"},
		{[]string{"data", "import", "demo", "--bogus"}, 2, "bogus"},
	} {
		code, _, errOut := clitest.RunPrism(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.contains) {
			t.Errorf("prism %s: exit %d, stderr %q; want exit %d mentioning %q", strings.Join(tc.args, " "), code, errOut, tc.code, tc.contains)
		}
	}
	// No failed import may leave a dataset behind, nor create the read-only
	// commands' workspace.
	if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
		t.Error("data ls created a workspace")
	}
	if code, out, _ := clitest.RunPrism(t, "data", "import", "demo", "--workspace", ws); code != 0 || !strings.Contains(out, "imported demo") {
		t.Fatal("import demo after failures failed")
	}
	_, out, _ := clitest.RunPrism(t, "data", "ls", "--workspace", ws)
	if n := len(strings.Split(strings.TrimSpace(out), "\n")); n != 2 {
		t.Errorf("after one good import and failed ones, data ls shows %d lines:\n%s", n, out)
	}
}

func TestDataWorkspaceFromEnvironment(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "env.db")
	t.Setenv("PRISM_WORKSPACE", ws)
	if code, _, errOut := clitest.RunPrism(t, "data", "import", "demo"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(ws); err != nil {
		t.Fatalf("$PRISM_WORKSPACE not used: %v", err)
	}
}

func TestDataImportSummEval(t *testing.T) {
	path := shareddata.Path(t, "summeval/data.json")
	ws := filepath.Join(t.TempDir(), "s.db")
	code, out, errOut := clitest.RunPrism(t, "data", "import", "summeval", path, "--workspace", ws)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "imported summeval: 100 contexts, 1600 candidates") {
		t.Errorf("output %q, want the dataset named summeval (not data.json's stem) with 100 contexts, 1600 candidates", out)
	}
}

func TestParseFlagsAnywhere(t *testing.T) {
	for _, tc := range []struct {
		args []string
		pos  string
		name string
	}{
		{[]string{"csv", "f.csv"}, "csv f.csv", ""},
		{[]string{"--name", "x", "csv", "f.csv"}, "csv f.csv", "x"},
		{[]string{"csv", "--name=x", "f.csv"}, "csv f.csv", "x"},
		{[]string{"csv", "f.csv", "-name", "x"}, "csv f.csv", "x"},
		{[]string{"csv", "--", "--name", "x"}, "csv --name x", ""},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		name := fs.String("name", "", "")
		pos, err := clikit.ParseFlagsAnywhere(fs, tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(pos, " ") != tc.pos || *name != tc.name {
			t.Errorf("parseFlagsAnywhere(%q) = %q, name %q; want %q, %q", tc.args, pos, *name, tc.pos, tc.name)
		}
	}
}
