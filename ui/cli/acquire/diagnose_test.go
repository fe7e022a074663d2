package acquire

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// TestDiagnoseUsage: prism diagnose without a kind, or with an unknown
// one, exits 2 with the synopsis.
func TestDiagnoseUsage(t *testing.T) {
	for _, args := range [][]string{{"diagnose"}, {"diagnose", "no-such-kind"}} {
		var out, errb bytes.Buffer
		if code := clikit.RunMain(context.Background(), args, &out, &errb); code != 2 {
			t.Fatalf("%v: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
		if !strings.Contains(errb.String(), "prism diagnose KIND") {
			t.Errorf("%v: the synopsis is missing: %q", args, errb.String())
		}
	}
}
