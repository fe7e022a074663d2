package engine

import (
	"os/exec"
	"testing"
)

// docs/scale.sh's httprun row starts a fake server per run and reads the
// address it prints from a file: it must read the new server's whole
// address, never the one a stopped server left there or half a line
// (issue 42, item 17). The script's -selftest starts a server that
// prints late and in two pieces over a stale address.
func TestScaleShReadsItsOwnServersAddress(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	out, err := exec.Command(bash, "../../docs/scale.sh", "-selftest", "-d", t.TempDir()).CombinedOutput()
	if err != nil {
		t.Fatalf("scale.sh -selftest: %v\n%s", err, out)
	}
}
