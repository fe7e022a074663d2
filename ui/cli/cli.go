package cli

import (
	"context"
	"io"

	"github.com/prism-eval/prism/ui/cli/internal/clikit"

	// The command groups register their commands from init: importing
	// them is the command table (clikit.Commands).
	_ "github.com/prism-eval/prism/ui/cli/acquire"
	_ "github.com/prism-eval/prism/ui/cli/analysis"
	_ "github.com/prism-eval/prism/ui/cli/data"
	_ "github.com/prism-eval/prism/ui/cli/score"
)

// Run dispatches args (without the program name) to a subcommand and
// returns the process exit code: 0, 1 for a failed command, 2 for a usage
// error. With no subcommand it runs the TUI.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return clikit.RunMain(ctx, args, stdout, stderr)
}
