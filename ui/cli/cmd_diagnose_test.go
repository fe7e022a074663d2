package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestDiagnoseUsage: prism diagnose without a kind, or with an unknown
// one, exits 2 with the synopsis.
func TestDiagnoseUsage(t *testing.T) {
	for _, args := range [][]string{{"diagnose"}, {"diagnose", "no-such-kind"}} {
		var out, errb bytes.Buffer
		if code := runMain(context.Background(), args, &out, &errb); code != 2 {
			t.Fatalf("%v: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
		if !strings.Contains(errb.String(), "prism diagnose KIND") {
			t.Errorf("%v: the synopsis is missing: %q", args, errb.String())
		}
	}
}
