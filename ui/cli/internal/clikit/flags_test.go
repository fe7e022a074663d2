package clikit

import (
	"strings"
	"testing"
)

// Deprecated: the former spelling parses, is left out of -h, prints one
// line of note when given, and is refused together with the new one.
func TestDeprecated(t *testing.T) {
	parse := func(args ...string) (old bool, note string, err error) {
		fs := NewFlags("prism x", "prism x [--new]")
		fs.Bool("new", false, "the new spelling")
		fs.Bool("old", false, "deprecated spelling of --new")
		fs.Hide("old")
		var stderr, stdout strings.Builder
		if _, help, err := fs.ParseArgs(args, &stdout); err != nil || help {
			if help && strings.Contains(stdout.String(), "-old") {
				t.Errorf("-h lists -old:\n%s", stdout.String())
			}
			return false, "", err
		}
		old, err = fs.Deprecated(&stderr, "old", "new")
		return old, stderr.String(), err
	}
	if old, note, err := parse("--new"); old || note != "" || err != nil {
		t.Errorf("--new: %v %q %v", old, note, err)
	}
	if old, note, err := parse("--old"); !old || note != "prism x: --old is deprecated, use --new\n" || err != nil {
		t.Errorf("--old: %v %q %v", old, note, err)
	}
	if _, note, err := parse("--old", "--new"); err == nil || note != "" || !strings.Contains(err.Error(), "--old is the deprecated spelling of --new: give only --new") {
		t.Errorf("--old --new: %q %v", note, err)
	}
	parse("-h")
}
