package engine

import (
	"os/exec"
	"strings"
	"testing"
)

// The engine acquires; it does not analyse: neither it nor anything it
// imports reads calib (calib/study reads studies for analysis).
func TestEngineDoesNotImportCalib(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/prism-eval/prism/calib" || strings.HasPrefix(p, "github.com/prism-eval/prism/calib/") {
			t.Errorf("judge/engine depends on %s", p)
		}
	}
}
