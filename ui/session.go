package ui

import (
	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// Session is what the App opens: a workspace, the dataset and probe bank
// being worked on, and the judge configuration the Run tab starts from.
type Session struct {
	Dataset    *model.Dataset
	Bank       *banks.Bank
	BankSource string // "builtin:NAME" or the file the bank came from
	Judge      string // the judge's display name, e.g. "offline (simulator)"
	Demo       bool   // the embedded demo study
	// Workspace is what the header says the study was opened from when
	// it is not the store's path, e.g. why the demo was opened ("demo:
	// no prism.db"); empty: "demo" for the demo, else the store's path.
	Workspace string

	// Store is the open workspace; the App never closes it. Nil leaves the
	// Run tab and imports disabled.
	Store *store.Store
	// Temporary says the workspace is deleted on exit (the demo's, when
	// no workspace file was given), so the quit dialog does not promise
	// that answers are kept.
	Temporary bool
	// Datasets names every dataset of the workspace; with more than one,
	// the App opens the dataset chooser at start unless PickedDataset.
	Datasets      []string
	PickedDataset bool
	// Config is the judge configuration the Run form starts from (zero:
	// judge.Defaults()).
	Config judge.Config
}

// DefaultBank is the built-in bank a dataset of task opens with: quality
// when it has the task's prompt, else the first built-in that has it
// (quality when none does). It returns the bank and its source label.
func DefaultBank(task string) (*banks.Bank, string, error) {
	b, err := banks.Builtin("quality")
	if err != nil {
		return nil, "", err
	}
	if _, ok := b.Tasks[task]; !ok {
		for _, c := range banks.Builtins() {
			if _, ok := c.Tasks[task]; ok {
				b = c.Clone()
				break
			}
		}
	}
	return b, "builtin:" + b.Name, nil
}
