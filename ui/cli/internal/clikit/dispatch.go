package clikit

import (
	"context"
	"errors"
	"flag"
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
	hidden  bool // left out of prism help and completion (__complete)
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

// RegisterHidden adds a subcommand prism help does not list (the
// completion scripts' __complete).
func RegisterHidden(name string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	Register(name, "", run)
	c := Commands[name]
	c.hidden = true
	Commands[name] = c
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
	} else if len(args) > 0 && topFlags[args[0]] != "" {
		name, args = topFlags[args[0]], args[1:]
	}
	if name == "help" {
		return runHelp(ctx, args, stdout, stderr)
	}
	cmd, ok := Commands[name]
	if !ok {
		fmt.Fprintf(stderr, "prism: unknown command %q%s\n\n", name, didYouMean(quote(Nearest(name, commandNames()))))
		usage(ctx, stderr)
		return 2
	}
	return exitCode(name, cmd.Run(ctx, args, stdout, stderr), stderr)
}

// topFlags are the flags prism takes before any command, and the command
// each one runs. Any other leading flag is the TUI's.
var topFlags = map[string]string{
	"-h": "help", "-help": "help", "--help": "help",
	"-v": "version", "-version": "version", "--version": "version",
}

// runHelp is prism help: the commands, or prism help CMD [SUB], which is
// prism CMD [SUB] -h.
func runHelp(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(ctx, stdout)
		return 0
	}
	return RunMain(ctx, append(append([]string(nil), args...), "-h"), stdout, stderr)
}

// exitCode reports a command's error and maps it to the exit code: 0, 1
// for a failed command, 2 for a usage error.
func exitCode(name string, err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "prism %s: %v\n", name, err)
	if errors.Is(err, ErrUsage) {
		return 2
	}
	return 1
}

// quote is name in quotes, or "" for no name.
func quote(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf("%q", name)
}

// commandNames are the shown commands, sorted.
func commandNames() []string {
	names := make([]string, 0, len(Commands))
	for n, c := range Commands {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func usage(ctx context.Context, w io.Writer) {
	fmt.Fprintln(w, "usage: prism [command] [flags]    (prism "+model.Version+")")
	fmt.Fprintln(w, "\nWith no command, prism opens the TUI on the workspace ($"+store.EnvWorkspace+", else ./prism.db),")
	fmt.Fprintln(w, "or on the embedded demo study when there is none.")
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-10s %s\n", n, Commands[n].summary)
	}
	if tui, ok := Commands["tui"]; ok {
		fmt.Fprintln(w, "\nflags (of the TUI, with no command):")
		printFlags(w, flagsOf(ctx, tui, nil), nil)
	}
	fmt.Fprintln(w, "\nRun 'prism COMMAND -h' (or prism help COMMAND) for a command's flags;")
	fmt.Fprintln(w, "prism --version prints the version, prism completion bash|zsh|fish a shell completion script.")
}

// flagsOf are the flags command cmd shows for -h after the words sub (a
// subcommand path such as "import" of data), read from the command itself.
func flagsOf(ctx context.Context, cmd Command, sub []string) *flag.FlagSet {
	var c FlagCapture
	_ = cmd.Run(ctx, append(append([]string(nil), sub...), "-h"), &c, io.Discard)
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	for _, fl := range c.Flags {
		fs.Var(fl.Value, fl.Name, fl.Usage)
		fs.Lookup(fl.Name).DefValue = fl.DefValue
	}
	return fs
}
