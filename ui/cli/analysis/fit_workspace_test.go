package analysis

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// A fit read straight from a workspace equals the fit of the same scores
// and labels exported as CSV files: the workspace path adds nothing and
// loses nothing.
func TestFitWorkspaceEqualsExportedCSV(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "w.db")
	for _, args := range [][]string{
		{"data", "import", "demo", "--workspace", ws},
		{"run", "--workspace", ws, "--bank", "quality", "--backend", "offline", "--repeats", "2"},
		{"export", "scores", "--workspace", ws, "--dataset", "demo", "--judge", "offline", "-o", filepath.Join(dir, "s.csv")},
		{"export", "labels", "--workspace", ws, "--dataset", "demo", "-o", filepath.Join(dir, "l.csv")},
	} {
		code, out, errOut := clitest.RunPrism(t, args...)
		if code != 0 {
			t.Fatalf("prism %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
		if args[0] == "run" && !strings.Contains(out, "offline (simulator)") {
			t.Errorf("prism run does not label the offline judge as a simulator:\n%s", out)
		}
	}
	fit := func(args ...string) map[string]any {
		t.Helper()
		code, out, errOut := clitest.RunPrism(t, append([]string{"fit", "--json", "--bootstrap", "300"}, args...)...)
		if code != 0 {
			t.Fatalf("prism fit %v: exit %d: %s", args, code, errOut)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	fromWS := fit("--workspace", ws, "--judge", "offline", "--bank", "quality")
	if fromWS["study"] == nil {
		t.Fatal("the workspace fit does not name its study")
	}
	delete(fromWS, "study") // what files cannot tell
	fromCSV := fit("--scores", filepath.Join(dir, "s.csv"), "--labels", filepath.Join(dir, "l.csv"))
	a, _ := json.Marshal(fromWS)
	b, _ := json.Marshal(fromCSV)
	if !bytes.Equal(a, b) {
		t.Fatalf("workspace fit differs from the exported-CSV fit:\nworkspace %s\ncsv       %s", a, b)
	}
	if n := fromWS["n_contexts"].(float64); n != 12 {
		t.Errorf("n_contexts = %v, want the demo's 12", n)
	}
	if cols := fromWS["columns"].([]any); len(cols) != 16 {
		t.Errorf("%d columns, want 16 (8 quality attributes × 2 signs)", len(cols))
	}
	// A saved calibrator records the run's 2 repeats: the streamed read
	// (fitStream) keeps a baseline row of each run for it.
	cal := filepath.Join(dir, "c.json")
	if code, _, errOut := clitest.RunPrism(t, "fit", "--workspace", ws, "--bootstrap", "20", "--save", cal); code != 0 {
		t.Fatalf("prism fit --save: exit %d: %s", code, errOut)
	}
	if c := clitest.ReadCalibrator(t, cal); c.Judge == nil || c.Judge.Runs != 2 || c.Judge.Backend != "offline" {
		t.Fatalf("saved calibrator's judge %+v, want offline with 2 runs", c.Judge)
	}
}

func TestFitWorkspaceErrors(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "w.db")
	if code, _, errOut := clitest.RunPrism(t, "data", "import", "demo", "--workspace", ws); code != 0 {
		t.Fatal(errOut)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--workspace", ws, "--judge", "nobody"}, 1, `judge "nobody"`},
		{[]string{"--workspace", filepath.Join(dir, "absent.db"), "--judge", "offline"}, 1, "no workspace at"},
		{[]string{"--workspace", ws, "--judge", "offline", "--scores", "s.csv", "--labels", "l.csv"}, 2, "not both"},
		{[]string{"--scores", "s.csv"}, 2, "go together"},
		{[]string{}, 2, "usage"},
	} {
		code, _, errOut := clitest.RunPrism(t, append([]string{"fit"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("prism fit %v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}
