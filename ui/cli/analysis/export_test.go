package analysis

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

func TestImportExportScoresRoundTrip(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "study.db")
	in := filepath.Join(dir, "in.csv")
	out := filepath.Join(dir, "out.csv")
	text := clitest.DemoScores(t)
	if err := os.WriteFile(in, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := clitest.RunPrism(t, "data", "import", "demo", "--workspace", ws); code != 0 {
		t.Fatal(errOut)
	}
	code, stdout, errOut := clitest.RunPrism(t, "import", "scores", "--dataset", "demo", "--judge", "external", in, "--workspace", ws)
	if code != 0 {
		t.Fatalf("import scores: exit %d: %s", code, errOut)
	}
	nRows := strings.Count(text, "\n") - 1
	if !strings.Contains(stdout, "imported "+strconv.Itoa(nRows)+" scores") {
		t.Errorf("import output %q, want %d scores", stdout, nRows)
	}
	code, _, errOut = clitest.RunPrism(t, "export", "scores", "--dataset", "demo", "--judge", "external", "-o", out, "--workspace", ws)
	if code != 0 {
		t.Fatalf("export scores: exit %d: %s", code, errOut)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := sortedLines(string(got)), sortedLines(text); a != b {
		t.Fatalf("export differs from the imported file (modulo order):\n%s\nwant\n%s", a, b)
	}
	// Standard output gives the same bytes as -o.
	_, stdout, _ = clitest.RunPrism(t, "export", "scores", "--dataset", "demo", "--judge", "external", "--workspace", ws)
	if stdout != string(got) {
		t.Error("export to stdout differs from export to -o")
	}
	// Importing the same file again under the same judge is refused whole.
	code, _, errOut = clitest.RunPrism(t, "import", "scores", "--dataset", "demo", "--judge", "external", in, "--workspace", ws)
	if code != 1 || !strings.Contains(errOut, "in.csv") || !strings.Contains(errOut, "line 2") {
		t.Errorf("re-import: exit %d, stderr %q; want 1 naming in.csv line 2", code, errOut)
	}
}

func sortedLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	sort.Strings(lines[1:])
	return strings.Join(lines, "\n")
}

func TestExportImportErrors(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "study.db")
	if code, _, errOut := clitest.RunPrism(t, "data", "import", "demo", "--workspace", ws); code != 0 {
		t.Fatal(errOut)
	}
	badCSV := filepath.Join(dir, "bad.csv")
	os.WriteFile(badCSV, []byte("context,candidate,probe,score\nc,x,baseline,abc\n"), 0o644)
	unknown := filepath.Join(dir, "unknown.csv")
	os.WriteFile(unknown, []byte("context,candidate,probe,score\nnope,x,baseline,1\n"), 0o644)
	for _, tc := range []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"export"}, 2, "usage"},
		{[]string{"export", "scores", "--workspace", ws}, 1, "holds no judge"},
		{[]string{"export", "scores", "--dataset", "demo", "--judge", "ghost", "--workspace", ws}, 1, `judge "ghost"`},
		{[]string{"export", "scores", "--dataset", "nope", "--judge", "ghost", "--workspace", filepath.Join(dir, "x.db")}, 1, "no workspace"},
		{[]string{"import"}, 2, "usage"},
		{[]string{"import", "scores", "--dataset", "demo", "--workspace", ws, badCSV}, 2, "--judge"},
		{[]string{"import", "scores", "--dataset", "demo", "--judge", "e", "--workspace", ws, badCSV}, 1, "bad.csv:2"},
		{[]string{"import", "scores", "--dataset", "demo", "--judge", "e", "--workspace", ws, unknown}, 1, "line 2"},
		{[]string{"import", "scores", "--dataset", "nope", "--judge", "e", "--workspace", ws, unknown}, 1, `dataset "nope"`},
	} {
		code, _, errOut := clitest.RunPrism(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.contains) {
			t.Errorf("prism %s: exit %d, stderr %q; want exit %d mentioning %q", strings.Join(tc.args, " "), code, errOut, tc.code, tc.contains)
		}
	}
	// The failed imports left nothing behind, not even the judge "e".
	code, _, errOut := clitest.RunPrism(t, "export", "scores", "--dataset", "demo", "--judge", "e", "--workspace", ws)
	if code != 1 || !strings.Contains(errOut, `judge "e"`) {
		t.Errorf("export after failed imports: exit %d, stderr %q; want judge \"e\" not found", code, errOut)
	}
}
