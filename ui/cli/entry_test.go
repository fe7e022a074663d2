package cli

import (
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// prism --version, -v and prism version print the version and the commit,
// which tests (no VCS stamp) report as unknown.
func TestVersionSpellings(t *testing.T) {
	want := "prism " + model.Version + " (commit unknown)\n"
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}} {
		code, out, errOut := clitest.RunPrism(t, args...)
		if code != 0 || out != want {
			t.Errorf("prism %v: exit %d, %q (stderr %q), want %q", args, code, out, errOut, want)
		}
	}
}

func TestCommitOfBuildSettings(t *testing.T) {
	s := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, c := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{s("vcs.revision", "3e9b98c0123456789", "vcs.time", "2026-12-05T10:11:12Z", "vcs.modified", "false"), "commit 3e9b98c, 2026-12-05"},
		{s("vcs.revision", "3e9b98c0123456789", "vcs.time", "2026-12-05T10:11:12Z", "vcs.modified", "true"), "commit 3e9b98c+dirty, 2026-12-05"},
		{s("vcs.revision", "abc"), "commit abc"},
		{s("-compiler", "gc"), "commit unknown"},
	} {
		if got := commitOf(c.settings); got != c.want {
			t.Errorf("commitOf(%v) = %q, want %q", c.settings, got, c.want)
		}
	}
	if got := versionLine("commit 3e9b98c, 2026-12-05"); got != "prism "+model.Version+" (commit 3e9b98c, 2026-12-05)" {
		t.Errorf("versionLine: %q", got)
	}
}

// prism -h, --help and help list every command with its summary and the
// TUI's flags; prism help CMD is prism CMD -h.
func TestHelpListsCommands(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		code, out, _ := clitest.RunPrism(t, args...)
		if code != 0 {
			t.Errorf("prism %v: exit %d", args, code)
		}
		for _, want := range []string{"\n  fit        fit PRISM corrections", "\n  score      ", "\n  completion ", "\n  version    ", "-workspace FILE", "-dataset NAME", "-bank BANK"} {
			if !strings.Contains(out, want) {
				t.Errorf("prism %v lacks %q:\n%s", args, want, out)
			}
		}
		if strings.Contains(out, "__complete") {
			t.Errorf("prism %v lists the hidden __complete", args)
		}
	}
	for _, cmd := range [][]string{{"fit"}, {"data", "import"}} {
		_, viaHelp, _ := clitest.RunPrism(t, append([]string{"help"}, cmd...)...)
		_, direct, _ := clitest.RunPrism(t, append(cmd, "-h")...)
		if viaHelp != direct || !strings.HasPrefix(direct, "usage:") {
			t.Errorf("prism help %v differs from prism %v -h:\n%s\n---\n%s", cmd, cmd, viaHelp, direct)
		}
	}
}

// A mistyped command or flag is refused (exit 2) with the nearest name;
// a far-off one without a suggestion.
func TestSuggestions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fitt"}, `prism: unknown command "fitt"; did you mean "fit"?` + "\n"},
		{[]string{"sccore"}, `prism: unknown command "sccore"; did you mean "score"?` + "\n"},
		{[]string{"zzzzzz"}, `prism: unknown command "zzzzzz"` + "\n"},
		{[]string{"fit", "--seeds", "3"}, "prism fit: flag provided but not defined: -seeds; did you mean --seed?\n"},
		{[]string{"fit", "--workpsace", "x"}, "prism fit: flag provided but not defined: -workpsace; did you mean --workspace?\n"},
		{[]string{"fit", "--zzzzzz"}, "prism fit: flag provided but not defined: -zzzzzz\n"},
	} {
		code, _, errOut := clitest.RunPrism(t, c.args...)
		if code != 2 || !strings.HasPrefix(errOut, c.want) {
			t.Errorf("prism %v: exit %d, stderr starts %q, want exit 2 and %q", c.args, code, errOut[:min(len(errOut), 120)], c.want)
		}
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, sh := range shells {
		code, out, errOut := clitest.RunPrism(t, "completion", sh)
		if code != 0 || !strings.Contains(out, "prism __complete") || !strings.Contains(out, "prism") {
			t.Errorf("completion %s: exit %d, stderr %q:\n%s", sh, code, errOut, out)
		}
	}
	if code, _, _ := clitest.RunPrism(t, "completion", "tcsh"); code != 2 {
		t.Errorf("completion tcsh: exit %d, want 2", code)
	}
}

// __complete offers command names, subcommands and argument values the
// commands register, and each command's flags read from its flag set.
func TestCompleteCandidates(t *testing.T) {
	for _, c := range []struct {
		args []string
		has  []string
		not  []string
	}{
		{[]string{"fi"}, []string{"fit"}, []string{"score", "__complete"}},
		{[]string{""}, []string{"fit", "score", "data", "completion"}, []string{"__complete"}},
		{[]string{"fit", "--se"}, []string{"--seed"}, []string{"--workspace"}},
		{[]string{"fit", "-"}, []string{"--seed", "--workspace", "--scores"}, nil},
		{[]string{"data", ""}, []string{"import", "ls", "rm"}, nil},
		{[]string{"data", "import", ""}, []string{"csv", "demo", "summeval"}, nil},
		{[]string{"data", "import", "csv", "x.csv", "--na"}, []string{"--name"}, nil},
		{[]string{"diagnose", ""}, []string{"order", "wording"}, nil},
		{[]string{"batch", "f"}, []string{"fetch", "forget"}, []string{"export"}},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish"}, nil},
		{[]string{"help", "sc"}, []string{"score", "screen"}, nil},
		{[]string{"--v"}, []string{"--version"}, nil},
		{[]string{"fit", "--workspace", ""}, nil, []string{"--seed", "fit"}},
	} {
		code, out, errOut := clitest.RunPrism(t, append([]string{"__complete"}, c.args...)...)
		got := strings.Fields(out)
		if code != 0 {
			t.Errorf("__complete %q: exit %d: %s", c.args, code, errOut)
		}
		for _, w := range c.has {
			if !slices.Contains(got, w) {
				t.Errorf("__complete %q = %q, lacks %q", c.args, got, w)
			}
		}
		for _, w := range c.not {
			if slices.Contains(got, w) {
				t.Errorf("__complete %q = %q, has %q", c.args, got, w)
			}
		}
	}
}
