package acquire

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// TestRepeatsFlagHelp: screen and every acquiring diagnosis list --repeats
// (with their own default) and not the deprecated --runs.
func TestRepeatsFlagHelp(t *testing.T) {
	for _, tt := range []struct {
		args []string
		def  string
	}{
		{[]string{"screen", "-h"}, "(default 2)"},
		{[]string{"diagnose", "joint", "-h"}, "(default 2)"},
		{[]string{"diagnose", "wording", "-h"}, "(default 2)"},
		{[]string{"diagnose", "resolution", "-h"}, "(default 1)"},
	} {
		out, _ := clitest.MustRun(t, tt.args...)
		if strings.Contains(out, "--runs") || strings.Contains(out, "-runs int") {
			t.Errorf("%v lists --runs:\n%s", tt.args, out)
		}
		if !strings.Contains(out, "[--repeats R]") || !strings.Contains(out, "-repeats int") {
			t.Errorf("%v does not list --repeats:\n%s", tt.args, out)
		}
		if line := lineAfter(out, "-repeats int"); !strings.HasSuffix(line, tt.def) {
			t.Errorf("%v: --repeats help %q, want the default %s", tt.args, line, tt.def)
		}
	}
}

// lineAfter is the line after the first line of s containing sub.
func lineAfter(s, sub string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines[:len(lines)-1] {
		if strings.Contains(l, sub) {
			return lines[i+1]
		}
	}
	return ""
}

// TestRepeatsFlagDeprecatedRuns: --runs N on screen and diagnose still
// sets the runs per condition for one release, with exactly one line of
// note on stderr; the output is --repeats N's.
func TestRepeatsFlagDeprecatedRuns(t *testing.T) {
	// Each invocation gets its own workspace: the second would otherwise
	// read the first's answers from the cache and print other counts.
	workspace := func() string {
		ws := filepath.Join(t.TempDir(), "ws.db")
		clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
		return ws
	}
	for _, tt := range []struct {
		cmd  []string
		note string
	}{
		{[]string{"screen", "--contexts", "4", "--bootstrap", "100"}, "prism screen: --runs is deprecated, use --repeats\n"},
		{[]string{"diagnose", "wording", "--contexts", "3", "--bootstrap", "10"}, "prism diagnose wording: --runs is deprecated, use --repeats\n"},
	} {
		want, wantErr := clitest.MustRun(t, append(tt.cmd, "--workspace", workspace(), "--repeats", "1")...)
		out, errOut := clitest.MustRun(t, append(tt.cmd, "--workspace", workspace(), "--runs", "1")...)
		if stripTimes(out) != stripTimes(want) {
			t.Errorf("%v --runs 1: output differs from --repeats 1:\n%s\nwant\n%s", tt.cmd, out, want)
		}
		if !strings.HasPrefix(errOut, tt.note) || strings.Count(errOut, "deprecated") != 1 {
			t.Errorf("%v --runs 1: stderr %q, want one line of note %q", tt.cmd, errOut, tt.note)
		}
		if strings.Contains(wantErr, "deprecated") {
			t.Errorf("%v --repeats 1: stderr %q has a deprecation note", tt.cmd, wantErr)
		}
	}
}

// stripTimes drops the lines that report wall time ("done: … in 38ms").
func stripTimes(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "done: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
