// Command prism is a terminal workbench for calibrating LLM judges against
// human ratings with the PRISM method (see README.md).
//
// With no arguments it opens the TUI on the embedded demo study; with a
// subcommand it runs headless (prism help lists them).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one headless subcommand. Each lives in its own cmd_*.go file
// and registers itself from init, so subcommands never share a file.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func register(name, summary string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	if _, dup := commands[name]; dup {
		panic("prism: command registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

// errUsage marks an error whose message is a usage text; main exits 2.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runMain(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// runMain dispatches args to a subcommand and returns the exit code.
func runMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	name := "tui"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	if name == "help" || name == "-h" || name == "--help" {
		usage(stdout)
		return 0
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "prism: unknown command %q\n\n", name)
		usage(stderr)
		return 2
	}
	if err := cmd.run(ctx, args, stdout, stderr); err != nil {
		if errors.Is(err, errUsage) {
			fmt.Fprintln(stderr, err)
			return 2
		}
		fmt.Fprintf(stderr, "prism %s: %v\n", name, err)
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: prism [command] [flags]")
	fmt.Fprintln(w, "\nWith no command, prism opens the TUI on the embedded demo study.")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'prism COMMAND -h' for a command's flags.")
}
