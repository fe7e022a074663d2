package cli

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// helpFlags parses the flag listing of a -h output (flag.PrintDefaults'
// layout: "  -name TYPE" then indented usage lines) into name → usage.
func helpFlags(t *testing.T, help string) map[string]string {
	t.Helper()
	flags := map[string]string{}
	head := regexp.MustCompile(`^  -([A-Za-z0-9-]+)(?:\s+(.*))?$`)
	cur := ""
	for _, line := range strings.Split(help, "\n") {
		if m := head.FindStringSubmatch(line); m != nil {
			cur = m[1]
			if _, dup := flags[cur]; dup {
				t.Errorf("flag -%s listed twice", cur)
			}
			flags[cur] = m[2]
			continue
		}
		if cur != "" && strings.HasPrefix(line, "    \t") {
			flags[cur] += " " + strings.TrimSpace(line)
			continue
		}
		cur = ""
	}
	return flags
}

// Every command's -h: one "usage:", and one vocabulary: --judge is the
// stored judge's name, --backend the backend (offline or openai); a flag
// name means one thing across commands; a flag's help shows one default;
// deprecated spellings and refused flags are not listed.
func TestCommandVocabulary(t *testing.T) {
	helps := [][]string{
		{"data", "import", "-h"}, {"data", "ls", "-h"}, {"data", "rm", "-h"},
		{"bank", "ls", "-h"}, {"bank", "show", "-h"}, {"bank", "export", "-h"},
		{"batch", "export", "-h"}, {"batch", "import", "-h"},
		{"export", "scores", "-h"}, {"export", "labels", "-h"},
		{"import", "scores", "-h"}, {"judge", "try", "-h"},
	}
	names := make([]string, 0, len(clikit.Commands))
	for n := range clikit.Commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if n == "__complete" {
			continue // hidden: its arguments are the command line being completed
		}
		helps = append(helps, []string{n, "-h"})
	}
	helps = append(helps, []string{"help"})

	hasJudge := map[string]bool{}
	meaning := map[string]string{} // flag → the first command's usage text
	where := map[string]string{}
	// The words that say what a shared flag means.
	mustSay := map[string][]string{
		"judge":     {"stored judge"},
		"backend":   {"offline", "openai"},
		"dataset":   {"dataset"},
		"workspace": {"workspace"},
		"bank":      {"BANK"},
	}
	refused := map[string][]string{
		"screen":       {"runs", "name"},    // --runs: the deprecated spelling of --repeats
		"run":          {"name", "batched"}, // --batched: the deprecated spelling of --listwise
		"bank show":    {"batch"},           // --batch: the deprecated spelling of --listwise
		"batch export": {"name"},
		"judge try":    {"judge"},
	}
	for _, args := range helps {
		cmd := strings.Join(args[:len(args)-1], " ")
		if len(args) == 1 {
			cmd = args[0]
		}
		code, out, errOut := clitest.RunPrism(t, args...)
		if code != 0 {
			t.Errorf("prism %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
			continue
		}
		if n := strings.Count(out, "usage:"); n != 1 {
			t.Errorf("prism %s: %d \"usage:\" in %q, want 1", strings.Join(args, " "), n, out)
		}
		flags := helpFlags(t, out)
		_, hasJudge[cmd] = flags["judge"]
		for name, usage := range flags {
			for _, w := range mustSay[name] {
				if !strings.Contains(usage, w) {
					t.Errorf("prism %s: -%s %q does not say %q", cmd, name, usage, w)
				}
			}
			if strings.Count(usage, "(default") > 1 {
				t.Errorf("prism %s: -%s shows two defaults: %q", cmd, name, usage)
			}
			// Keep the meaning: the usage up to its default, which may differ.
			m := usage
			if i := strings.Index(m, "(default"); i >= 0 {
				m = m[:i]
			}
			if _, ok := mustSay[name]; ok {
				if first, seen := meaning[name]; !seen {
					meaning[name], where[name] = m, cmd
				} else if name == "judge" || name == "backend" {
					// Same word, same kind of value.
					if strings.Contains(first, "stored judge") != strings.Contains(m, "stored judge") {
						t.Errorf("-%s means %q in %s but %q in %s", name, first, where[name], m, cmd)
					}
				}
			}
		}
		for _, r := range refused[cmd] {
			if _, ok := flags[r]; ok {
				t.Errorf("prism %s -h lists -%s, which it refuses or has renamed", cmd, r)
			}
		}
	}
	for _, cmd := range []string{"run", "screen", "fit", "select", "export scores", "import scores", "batch export"} {
		if !hasJudge[cmd] {
			t.Errorf("prism %s -h does not list -judge", cmd)
		}
	}
}

// Usage errors print the reason and one "usage:" line.
func TestUsageErrorsOneUsageLine(t *testing.T) {
	for _, args := range [][]string{
		{"run", "extra"}, {"screen", "--repeats", "0"}, {"fit", "--scores", "s.csv"},
		{"select", "--bogus"}, {"data"}, {"data", "import"}, {"bank"}, {"batch"},
		{"export"}, {"import"}, {"judge"}, {"tui", "extra"}, {"judge", "try", "x"},
	} {
		code, _, errOut := clitest.RunPrism(t, args...)
		if code != 2 || strings.Count(errOut, "usage:") != 1 || !strings.HasPrefix(errOut, "prism "+args[0]+": ") {
			t.Errorf("prism %s: exit %d, stderr %q; want exit 2, the reason and one usage line", strings.Join(args, " "), code, errOut)
		}
	}
}

// The old spellings work for one release, with a note on stderr.
func TestJudgeDeprecatedSpellings(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	code, out, errOut := clitest.RunPrism(t, "run", "--workspace", ws, "--bank", "quality", "--judge", "offline", "--dry-run")
	if code != 0 || !strings.Contains(errOut, "prism run: --judge offline is deprecated: use --backend offline (--judge now names the stored judge)") ||
		!strings.Contains(out, `→ judge "offline"`) {
		t.Errorf("run --judge offline: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = clitest.RunPrism(t, "run", "--workspace", ws, "--bank", "quality", "--judge", "openai", "--model", "gpt-4o-mini", "--dry-run")
	if code != 0 || !strings.Contains(errOut, "--judge openai is deprecated: use --backend openai") || !strings.Contains(out, `→ judge "gpt-4o-mini"`) {
		t.Errorf("run --judge openai: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = clitest.RunPrism(t, "screen", "--workspace", ws, "--name", "mine", "--contexts", "5", "--repeats", "1", "--json")
	if code != 0 || !strings.Contains(errOut, "prism screen: --name is deprecated: use --judge mine") || !strings.Contains(out, `"judge": "mine"`) {
		t.Errorf("screen --name mine: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// The new spelling: --judge names the stored judge, no note.
	code, out, errOut = clitest.RunPrism(t, "run", "--workspace", ws, "--bank", "quality", "--backend", "offline", "--judge", "sim", "--dry-run")
	if code != 0 || errOut != "" || !strings.Contains(out, `→ judge "sim"`) {
		t.Errorf("run --backend offline --judge sim: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, _, errOut := clitest.RunPrism(t, "run", "--workspace", ws, "--judge", "a", "--name", "b", "--dry-run"); code != 2 || !strings.Contains(errOut, "--name") {
		t.Errorf("run --judge a --name b: exit %d, stderr %q", code, errOut)
	}
	code, out, errOut = clitest.RunPrism(t, "judge", "try", "--judge", "offline")
	if code != 0 || !strings.Contains(errOut, "--judge offline is deprecated") || !strings.Contains(out, "judge offline") {
		t.Errorf("judge try --judge offline: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// fit --judge BACKEND after runs in both modes: no guess, the judges of
// that backend are listed; an unknown name lists what there is.
func TestFitJudgeNames(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	clitest.MustRun(t, "run", "--workspace", ws, "--backend", "offline", "--mode", "expected")
	code, _, errOut := clitest.RunPrism(t, "fit", "--workspace", ws, "--judge", "offline")
	if code != 1 || !strings.Contains(errOut, `no stored judge is named "offline"; judges made by backend offline: offline-expected`) {
		t.Errorf("fit --judge offline after an expected run: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = clitest.RunPrism(t, "fit", "--workspace", ws, "--judge", "openai")
	if code != 1 || !strings.Contains(errOut, `judge "openai": not found; the workspace holds offline-expected`) || strings.Contains(errOut, `judge "openai": judge`) {
		t.Errorf("fit --judge openai: exit %d, stderr %q", code, errOut)
	}
	// The only judge is the default.
	code, out, errOut := clitest.RunPrism(t, "fit", "--workspace", ws, "--bootstrap", "20", "--json")
	if code != 0 || !strings.Contains(out, `"methods"`) {
		t.Errorf("fit with one judge: exit %d, stderr %q", code, errOut)
	}
	// Two judges of one backend: fitting one names the other.
	clitest.MustRun(t, "run", "--workspace", ws, "--backend", "offline")
	code, _, errOut = clitest.RunPrism(t, "fit", "--workspace", ws, "--judge", "offline", "--bootstrap", "20", "--json")
	if code != 0 || !strings.Contains(errOut, "also holds offline-expected") {
		t.Errorf("fit --judge offline beside offline-expected: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = clitest.RunPrism(t, "fit", "--workspace", ws)
	if code != 2 || !strings.Contains(errOut, "holds 2 judges (offline, offline-expected); choose one with --judge") {
		t.Errorf("fit with two judges: exit %d, stderr %q", code, errOut)
	}
}

// The only dataset, judge and bank are the defaults everywhere.
func TestOnlyOneDefaults(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	out, _ := clitest.MustRun(t, "run", "--workspace", ws) // no --bank: quality, the demo task's first
	if !strings.Contains(out, "× bank quality") {
		t.Errorf("run without --bank: %q", out)
	}
	scores := filepath.Join(dir, "s.csv")
	clitest.MustRun(t, "export", "scores", "--workspace", ws, "-o", scores)
	labels, _ := clitest.MustRun(t, "export", "labels", "--workspace", ws)
	if !strings.HasPrefix(labels, "context,candidate,human") {
		t.Errorf("export labels: %q", labels)
	}
	out, _ = clitest.MustRun(t, "import", "scores", "--workspace", ws, "--judge", "again", scores)
	if !strings.Contains(out, "as judge again on demo") {
		t.Errorf("import scores without --dataset: %q", out)
	}
	// Now two judges: export scores asks which.
	code, _, errOut := clitest.RunPrism(t, "export", "scores", "--workspace", ws)
	if code != 2 || !strings.Contains(errOut, "choose one with --judge") {
		t.Errorf("export scores with two judges: exit %d, stderr %q", code, errOut)
	}
}
