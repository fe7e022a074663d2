package ui

import (
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/tab"
	datatab "github.com/prism-eval/prism/ui/tabs/data"
)

// datasetMsg carries a dataset read from the workspace (tab.DatasetMsg,
// from the Data tab's dialogs).
type datasetMsg struct {
	ds  *model.Dataset
	err error
	// dropEdits: the user agreed to lose unsaved bank edits when this
	// dataset needs another bank.
	dropEdits bool
}

// newDataTab is the Data tab of ds.
func (a *App) newDataTab(ds *model.Dataset) *datatab.Tab {
	return datatab.New(services{a}, datatab.DefaultKeyMap(), a.keys.dialog(), ds)
}

// onDatasetMsg takes what the Data tab's dialogs send: the workspace's
// datasets listed (d), a dataset read or imported.
func (a *App) onDatasetMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case datatab.ListedMsg:
		if msg.Err != nil {
			a.data.SetStatus(msg.Err.Error(), true)
			return nil
		}
		a.study.Datasets = msg.Names
		return a.openDialog(datatab.NewChooser(services{a}, a.keys.dialog(), msg.Names, a.study.Dataset.Name))
	case tab.DatasetMsg:
		if msg.Imported && !slices.Contains(a.study.Datasets, msg.Dataset.Name) {
			a.study.Datasets = append(a.study.Datasets, msg.Dataset.Name)
		}
		return a.onDataset(datasetMsg{ds: msg.Dataset, err: msg.Err})
	}
	return nil
}

// onDataset switches the study to a dataset read from the workspace.
func (a *App) onDataset(msg datasetMsg) tea.Cmd {
	if msg.err != nil {
		a.data.SetStatus(msg.err.Error(), true)
		return nil
	}
	if _, ok := a.bank.Bank().Tasks[msg.ds.Task]; !ok && a.bank.Unsaved() && !msg.dropEdits {
		// Opening it replaces the bank: unsaved edits would go with it.
		next := msg
		next.dropEdits = true
		a.modal = &confirm{
			title: "Switch dataset?",
			lines: []string{
				fmt.Sprintf("The bank %s (%.7s) has unsaved edits and no %s prompt, so opening %s replaces it. Drop the edits?",
					a.bank.Bank().Name, a.bank.Bank().Hash(), msg.ds.Task, msg.ds.Name),
				"n keeps the dataset and the bank as they are; w on the Bank tab saves the bank.",
			},
			yes: "open it and drop the edits", no: "keep both",
			onYes: func(a *App) tea.Cmd { return a.onDataset(next) },
		}
		return nil
	}
	a.study.Dataset = msg.ds
	a.data = a.newDataTab(msg.ds)
	a.bank.SetTask(msg.ds.Task)
	status := fmt.Sprintf("dataset %s · %d candidates", msg.ds.Name, msg.ds.NumCandidates())
	if _, ok := a.bank.Bank().Tasks[msg.ds.Task]; !ok {
		// The bank cannot render this kind of data: take a built-in that can.
		if b, src, err := DefaultBank(msg.ds.Task); err == nil {
			a.bank.Open(b, src)
			a.study.Bank = b
			status += fmt.Sprintf(" · bank %s (has the %s prompt)", b.Name, msg.ds.Task)
		}
	}
	a.data.SetStatus(status, false)
	a.layout()
	a.bank.Refresh()
	// A loaded calibrator follows the study to the dataset.
	return tab.Batch(a.run.Replan(), a.applyCalibrator())
}
