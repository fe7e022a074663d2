package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/prism-eval/prism/model"
)

func init() {
	register("version", "print prism's version", runVersion)
}

func runVersion(_ context.Context, args []string, stdout, _ io.Writer) error {
	fs := newFlags("prism version", "prism version\n\nPrints prism's version, the one recorded in the calibrator files it writes.")
	pos, help, err := fs.parse(args, stdout)
	if err != nil || help {
		return err
	}
	if err := noArgs(fs.usage, pos); err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, "prism", model.Version)
	return err
}
