// Command prism is a terminal workbench for calibrating LLM judges against
// human ratings with the PRISM method (see README.md).
//
// With no arguments it opens the TUI on the embedded demo study; with a
// subcommand it runs headless (prism help lists them). The commands live in
// ui/cli; the packages are model (domain data, datasets, the workspace
// store), banks (probe banks and prompts), judge (judge backends and the
// acquisition engine), calib (the numerics) and ui (the TUI and the CLI).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/prism-eval/prism/ui/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
