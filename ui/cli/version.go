package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("version", "print prism's version", runVersion)
}

func runVersion(_ context.Context, args []string, stdout, _ io.Writer) error {
	fs := clikit.NewFlags("prism version", "prism version\n\nPrints prism's version, the one recorded in the calibrator files it writes.")
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if err := clikit.NoArgs(fs.UsageDoc, pos); err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, "prism", model.Version)
	return err
}
