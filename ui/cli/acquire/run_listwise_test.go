package acquire

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// TestRunListwiseHelp: prism run -h lists --listwise and its flags, not
// the deprecated --batched.
func TestRunListwiseHelp(t *testing.T) {
	out, _ := clitest.MustRun(t, "run", "-h")
	for _, want := range []string{"[--listwise [--orders K] [--order-seed S]]", "  -listwise\n", "with --listwise: presentation orders"} {
		if !strings.Contains(out, want) {
			t.Errorf("run -h lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "--batched") || strings.Contains(out, "  -batched") {
		t.Errorf("run -h lists the deprecated --batched:\n%s", out)
	}
}

// TestRunListwiseDeprecatedBatched: --batched still runs the listwise
// study for one release, with exactly one line of note on stderr: the
// same output and the same stored answers (under the same judge name,
// NAME-batched) as --listwise.
func TestRunListwiseDeprecatedBatched(t *testing.T) {
	// Each invocation gets its own workspace: the second would otherwise
	// read the first's answers from the cache.
	run := func(flag string) (ws, out, errOut string) {
		ws = filepath.Join(t.TempDir(), "ws.db")
		clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
		out, errOut = clitest.MustRun(t, "run", "--workspace", ws, "--bank", "style8", "--probes", "baseline,length:+", flag, "--orders", "2")
		return ws, out, errOut
	}
	ws, want, wantErr := run("--listwise")
	oldWS, out, errOut := run("--batched")
	if !strings.Contains(want, "listwise: 2 order(s) per context and condition (order seed 42); one call scores every candidate of a context\n") ||
		strings.Contains(want, "batched:") || !strings.Contains(want, `→ judge "offline-batched"`) {
		t.Errorf("--listwise output:\n%s", want)
	}
	if stripTimes(out) != stripTimes(want) {
		t.Errorf("--batched output differs from --listwise:\n%s\nwant\n%s", out, want)
	}
	const note = "prism run: --batched is deprecated, use --listwise\n"
	if !strings.HasPrefix(errOut, note) || strings.Count(errOut, "deprecated") != 1 || strings.Count(errOut, "\n") != strings.Count(wantErr, "\n")+1 {
		// The rest is --listwise's progress, whose rates differ.
		t.Errorf("--batched: stderr %q, want one line of note %q, then the lines of --listwise's %q", errOut, note, wantErr)
	}
	if strings.Contains(wantErr, "deprecated") {
		t.Errorf("--listwise: stderr %q has a deprecation note", wantErr)
	}
	scores := func(ws string) string {
		out, _ := clitest.MustRun(t, "export", "scores", "--workspace", ws, "--judge", "offline-batched")
		return out
	}
	if got, want := scores(oldWS), scores(ws); got != want || strings.Count(want, "\n") < 2 {
		t.Errorf("--batched stored other answers than --listwise:\n%s\nwant\n%s", got, want)
	}

	code, _, errOut := clitest.RunPrism(t, "run", "--workspace", ws, "--batched", "--listwise", "--dry-run")
	if code != 2 || !strings.Contains(errOut, "--batched is the deprecated spelling of --listwise: give only --listwise") {
		t.Errorf("--batched --listwise: exit %d, stderr %q", code, errOut)
	}
}
