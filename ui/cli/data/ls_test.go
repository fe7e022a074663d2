package data

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

func TestLsAfterOfflineRun(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	out, _ := clitest.MustRun(t, "ls", "--workspace", ws)
	for _, want := range []string{"datasets (1)", "banks (0)", "judges (0)", "studies (0)"} {
		if !strings.Contains(out, want) {
			t.Errorf("ls before a run lacks %q:\n%s", want, out)
		}
	}
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "quality", "--backend", "offline")
	out, _ = clitest.MustRun(t, "ls", "--workspace", ws)
	t.Logf("\n%s", out)
	for _, re := range []string{
		`(?m)^workspace .*ws\.db$`,
		`(?m)^  demo +demo +\S+ +12 +\d+$`,
		`(?m)^  quality +[0-9a-f]{12} +builtin:quality$`,
		`(?m)^judges \(1\): the names --judge takes$`,
		`(?m)^  offline +offline +- +- +\{.*"mode":"integer".*\}$`,
		`(?m)^  demo +offline +quality [0-9a-f]{12} +1–10 +1 +(\d+) +(\d+) +0 +0 +run$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("ls lacks %s:\n%s", re, out)
		}
	}
	m := regexp.MustCompile(`(?m)^  demo +offline +quality [0-9a-f]{12} +1–10 +1 +(\d+) +(\d+) +0 +0 +run$`).FindStringSubmatch(out)
	if m != nil && m[1] != m[2] {
		t.Errorf("after a finished offline run, planned %s != answered %s", m[1], m[2])
	}
	if code, _, errOut := clitest.RunPrism(t, "ls", "--workspace", filepath.Join(t.TempDir(), "none.db")); code != 1 || !strings.Contains(errOut, "no workspace at") {
		t.Errorf("ls without a workspace: exit %d, stderr %q", code, errOut)
	}
}
