package clikit

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/prism-eval/prism/model/store"
)

// WorkspaceFlags is a flag set with the --workspace flag every workspace
// command shares (workspace is nil for a command without one), its usage
// text, and the flags its -h leaves out (deprecated spellings, flags the
// command refuses).
type WorkspaceFlags struct {
	*flag.FlagSet
	Workspace *string
	UsageDoc  string
	hidden    map[string]bool
}

func NewWorkspaceFlags(name string, stderr io.Writer, usage string) WorkspaceFlags {
	f := NewFlags(name, usage)
	f.Workspace = f.String("workspace", "", "workspace `FILE` (default $"+store.EnvWorkspace+" if set, else prism.db)")
	return f
}

// NewFlags is a flag set without --workspace, for commands that use none.
func NewFlags(name, usage string) WorkspaceFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// Parse errors come back as errors that carry the usage text; the
	// flag package's own printing would show it twice.
	fs.SetOutput(io.Discard)
	return WorkspaceFlags{FlagSet: fs, UsageDoc: usage, hidden: map[string]bool{}}
}

// Hide leaves a flag out of -h: it still parses.
func (f WorkspaceFlags) Hide(names ...string) {
	for _, n := range names {
		f.hidden[n] = true
	}
}

// ParseArgs parses args with ParseFlagsAnywhere. On -h it prints the usage and
// the flags to stdout and reports help; other errors are usage errors. An
// empty --workspace becomes the default path.
func (f WorkspaceFlags) ParseArgs(args []string, stdout io.Writer) (pos []string, help bool, err error) {
	pos, err = ParseFlagsAnywhere(f.FlagSet, args)
	if errors.Is(err, flag.ErrHelp) {
		if c, ok := stdout.(*FlagCapture); ok {
			c.Flags = f.visible()
			return nil, true, nil
		}
		fmt.Fprintln(stdout, UsageText(f.UsageDoc))
		fmt.Fprintln(stdout, "\nflags:")
		printFlags(stdout, f.FlagSet, f.hidden)
		return nil, true, nil
	}
	if err != nil {
		return nil, false, UsageErr(f.UsageDoc, "%v%s", err, f.suggestFlag(err))
	}
	if f.Workspace != nil && *f.Workspace == "" {
		*f.Workspace = store.DefaultPath()
	}
	return pos, false, nil
}

// undefinedFlag is the start of the flag package's error for a flag the
// set does not define ("flag provided but not defined: -seeds").
const undefinedFlag = "flag provided but not defined: -"

// suggestFlag is the "; did you mean --seed?" for an undefined flag near
// one of the set's shown flags, else "".
func (f WorkspaceFlags) suggestFlag(err error) string {
	name, ok := strings.CutPrefix(err.Error(), undefinedFlag)
	if !ok {
		return ""
	}
	var names []string
	for _, fl := range f.visible() {
		names = append(names, fl.Name)
	}
	if near := Nearest(name, names); near != "" {
		return didYouMean("--" + near)
	}
	return ""
}

// visible are the flags -h shows, in the flag package's (sorted) order.
func (f WorkspaceFlags) visible() []*flag.Flag {
	var out []*flag.Flag
	f.VisitAll(func(fl *flag.Flag) {
		if !f.hidden[fl.Name] {
			out = append(out, fl)
		}
	})
	return out
}

// FlagCapture is a writer that, passed as a command's stdout with -h,
// makes ParseArgs record the command's shown flags instead of printing
// its help: completion and prism -h read a command's flags from the
// command itself, so they never go stale. It discards what is written.
type FlagCapture struct {
	Flags []*flag.Flag
}

func (c *FlagCapture) Write(p []byte) (int, error) { return len(p), nil }

// printFlags prints the flags of fs as flag.PrintDefaults does, without
// the hidden ones.
func printFlags(w io.Writer, fs *flag.FlagSet, hidden map[string]bool) {
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	fs.VisitAll(func(fl *flag.Flag) {
		if hidden[fl.Name] {
			return
		}
		shown.Var(fl.Value, fl.Name, fl.Usage)
		shown.Lookup(fl.Name).DefValue = fl.DefValue
	})
	shown.SetOutput(w)
	shown.PrintDefaults()
}

// UsageText prefixes a usage text that may start on its own line.
func UsageText(u string) string {
	if strings.HasPrefix(u, "\n") {
		return "usage:" + u
	}
	return "usage: " + u
}

// ParseFlagsAnywhere parses flags placed before, between or after the
// positional arguments (prism data import csv f.csv --name x), which the
// flag package alone stops at, and returns the positional arguments.
// A lone "--" ends flag parsing.
func ParseFlagsAnywhere(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, checkFloatFlags(fs)
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), checkFloatFlags(fs)
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// FlagGiven reports whether the flag name was given.
func FlagGiven(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// Deprecated is the one way a flag's former spelling is retired: old still
// parses for one release, left out of -h (Hide it where it is defined).
// It reports whether old was given, then printing exactly one note on
// stderr ("PROG: --old is deprecated, use --new"); old given together with
// new is a usage error, since the two could disagree.
func (f WorkspaceFlags) Deprecated(stderr io.Writer, old, new string) (bool, error) {
	if !FlagGiven(f.FlagSet, old) {
		return false, nil
	}
	if FlagGiven(f.FlagSet, new) {
		return false, UsageErr(f.UsageDoc, "--%s is the deprecated spelling of --%s: give only --%s", old, new, new)
	}
	fmt.Fprintf(stderr, "%s: --%s is deprecated, use --%s\n", f.Name(), old, new)
	return true, nil
}
