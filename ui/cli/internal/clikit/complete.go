package clikit

import (
	"context"
	"flag"
	"slices"
	"strings"
)

// argLists are the words that may follow a command path ("data", "data
// import", "diagnose"): its subcommands, or the values of its first
// argument (data import's formats). Commands add theirs with RegisterArgs;
// completion offers them.
var argLists = map[string]func() []string{}

// RegisterArgs records the words that may follow the command path (its
// words joined by spaces). list is called when completing, so a list that
// other files fill from init (diagnose's kinds) is complete by then.
func RegisterArgs(path string, list func() []string) {
	if _, dup := argLists[path]; dup {
		panic("prism: arguments registered twice: " + path)
	}
	argLists[path] = list
}

// Complete is the candidates for the last of words, the word being typed
// ("" for a new word) after the others: command names, a command's
// subcommands or argument values, or its flags (--name). It returns nil
// when it has none to offer (a flag's value, a file name): the shell then
// completes file names.
func Complete(ctx context.Context, words []string) []string {
	if len(words) == 0 {
		return nil
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	if len(before) == 0 {
		if strings.HasPrefix(cur, "-") {
			return withPrefix(append(flagWords(ctx, "tui", nil), "--help", "--version"), cur)
		}
		return withPrefix(commandNames(), cur)
	}
	name := before[0]
	if name == "help" {
		return withPrefix(commandNames(), cur)
	}
	if _, ok := Commands[name]; !ok || Commands[name].hidden {
		return nil
	}
	path, rest := commandPath(name, before[1:])
	if strings.HasPrefix(cur, "-") {
		return withPrefix(flagWords(ctx, name, path[1:]), cur)
	}
	if len(rest) > 0 && takesValue(ctx, name, path[1:], rest[len(rest)-1]) {
		return nil
	}
	if list := argLists[strings.Join(path, " ")]; list != nil && len(rest) == 0 {
		return withPrefix(list(), cur)
	}
	return nil
}

// commandPath walks the words after a command through its registered
// arguments: path is the command and the subcommand words ("data",
// "import", "csv"), rest the words after them (flags, their values,
// further arguments).
func commandPath(name string, words []string) (path, rest []string) {
	path = []string{name}
	for i, w := range words {
		list := argLists[strings.Join(path, " ")]
		if strings.HasPrefix(w, "-") || list == nil || !slices.Contains(list(), w) {
			return path, words[i:]
		}
		path = append(path, w)
	}
	return path, nil
}

// flagWords are the --flags command name shows for -h after sub.
func flagWords(ctx context.Context, name string, sub []string) []string {
	var out []string
	flagsOf(ctx, Commands[name], sub).VisitAll(func(fl *flag.Flag) {
		out = append(out, "--"+fl.Name)
	})
	return out
}

// takesValue reports whether word is a flag of the command that needs a
// value (--workspace, not --json) given as the next word.
func takesValue(ctx context.Context, name string, sub []string, word string) bool {
	f, ok := strings.CutPrefix(strings.TrimPrefix(word, "-"), "-")
	if !ok {
		f = strings.TrimPrefix(word, "-")
	}
	if word == f || strings.Contains(f, "=") {
		return false
	}
	fl := flagsOf(ctx, Commands[name], sub).Lookup(f)
	if fl == nil {
		return false
	}
	b, isBool := fl.Value.(interface{ IsBoolFlag() bool })
	return !isBool || !b.IsBoolFlag()
}

// withPrefix are the words that start with cur, a flag's single or
// double dash alike.
func withPrefix(words []string, cur string) []string {
	if strings.HasPrefix(cur, "-") {
		cur = "--" + strings.TrimLeft(cur, "-")
	}
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, cur) {
			out = append(out, w)
		}
	}
	return out
}
