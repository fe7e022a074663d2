package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// prism import scores refuses at import time what prism fit would refuse
// later, naming file, line and field.
func TestImportScoresValidates(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, csv, want string }{
		{"probe", "context,candidate,probe,score\nc,a,baseline,1\nc,a,../../etc:+,2\n", `s.csv:3:5: field "probe": probe "../../etc:+": name "../../etc" is not valid`},
		{"huge", "context,candidate,probe,score\nc,a,baseline,1e308\n", `s.csv:2:14: field "score": "1e308": 1e+308 is not a finite number within ±1e+15`},
	} {
		path := filepath.Join(dir, "s.csv")
		if err := os.WriteFile(path, []byte(tc.csv), 0o644); err != nil {
			t.Fatal(err)
		}
		err := clikit.Commands["import"].Run(context.Background(), []string{"scores", "--dataset", "d", "--judge", "j", "--workspace", filepath.Join(dir, "none.db"), path}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// Devices are refused before any read wherever a file is named.
func TestCommandsRefuseDevices(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	ctx := context.Background()
	ws := filepath.Join(t.TempDir(), "none.db")
	for _, args := range [][]string{
		{"bank", "validate", "/dev/zero"},
		{"bank", "show", "/dev/zero"},
		{"data", "import", "jsonl", "/dev/zero", "--workspace", ws},
		{"import", "scores", "--dataset", "d", "--judge", "j", "--workspace", ws, "/dev/zero"},
		{"fit", "--scores", "/dev/zero", "--labels", "/dev/zero"},
	} {
		var stderr strings.Builder
		code := clikit.RunMain(ctx, args, io.Discard, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), "/dev/zero: is a device or socket, not a file") {
			t.Errorf("prism %s: exit %d, %s", strings.Join(args, " "), code, stderr.String())
		}
	}
}
