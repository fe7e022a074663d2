package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui"
)

func init() {
	register("tui", "open the TUI (the default with no command)", runTUI)
}

// demoBank is the bank the embedded demo study opens with.
const demoBank = "quality"

func runTUI(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("prism", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	study, err := demoStudy()
	if err != nil {
		return err
	}
	p := tea.NewProgram(ui.New(study), tea.WithContext(ctx), tea.WithOutput(stdout))
	_, err = p.Run()
	if err != nil && ctx.Err() != nil {
		return nil // interrupted: a clean exit
	}
	return err
}

// demoStudy is the embedded default: demo data, a built-in bank and the
// offline judge, with no files, keys or network.
func demoStudy() (ui.Study, error) {
	b, err := banks.Builtin(demoBank)
	if err != nil {
		return ui.Study{}, err
	}
	return ui.Study{Dataset: model.Demo(), Bank: b, Judge: "offline (simulator)", Demo: true}, nil
}
