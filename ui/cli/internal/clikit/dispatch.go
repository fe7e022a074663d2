package clikit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// Command is one headless subcommand. Each lives in its own file of a
// command group (ui/cli/acquire, analysis, data, score, or ui/cli itself)
// and registers itself from init, so subcommands never share a file.
type Command struct {
	summary string
	Run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// Commands are the registered subcommands by name.
var Commands = map[string]Command{}

// Register adds a subcommand; a name registered twice panics.
func Register(name, summary string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	if _, dup := Commands[name]; dup {
		panic("prism: command registered twice: " + name)
	}
	Commands[name] = Command{summary: summary, Run: run}
}

// ErrUsage marks a usage error; main exits 2. Usage errors are made with
// UsageErr, which pairs the reason with the command's synopsis.
var ErrUsage = errors.New("usage")

// usageError is a usage error: why the command line was refused and the
// synopsis of the command (the usage text up to its first blank line).
type usageError struct {
	reason string
	usage  string
}

func (e *usageError) Error() string {
	if e.usage == "" {
		return e.reason
	}
	return e.reason + "\n" + UsageText(synopsis(e.usage))
}

func (e *usageError) Is(target error) bool { return target == ErrUsage }

// UsageErr is a usage error whose message is the reason (format, args) on
// one line and the command's synopsis after one "usage:".
func UsageErr(usage, format string, args ...any) error {
	return &usageError{reason: fmt.Sprintf(format, args...), usage: usage}
}

// synopsis is a usage text up to its first blank line: the command lines,
// without the description -h prints.
func synopsis(u string) string {
	u = strings.TrimPrefix(u, "usage:")
	lead := strings.HasPrefix(u, "\n")
	body := strings.TrimLeft(u, "\n ")
	if i := strings.Index(body, "\n\n"); i >= 0 {
		body = body[:i]
	}
	if lead {
		return "\n  " + body
	}
	return body
}

// RunMain dispatches args to a subcommand and returns the exit code.
func RunMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	name := "tui"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	if name == "help" || name == "-h" || name == "--help" {
		usage(stdout)
		return 0
	}
	cmd, ok := Commands[name]
	if !ok {
		fmt.Fprintf(stderr, "prism: unknown command %q\n\n", name)
		usage(stderr)
		return 2
	}
	if err := cmd.Run(ctx, args, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "prism %s: %v\n", name, err)
		if errors.Is(err, ErrUsage) {
			return 2
		}
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: prism [command] [flags]    (prism "+model.Version+")")
	fmt.Fprintln(w, "\nWith no command, prism opens the TUI on the workspace ($"+store.EnvWorkspace+", else ./prism.db),")
	fmt.Fprintln(w, "or on the embedded demo study when there is none.")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(Commands))
	for n := range Commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, Commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'prism COMMAND -h' for a command's flags.")
}
