package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
)

// bankKey handles the Bank screen's own keys.
func (a *App) bankKey(msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	v := &a.bank
	c := v.selected()
	switch {
	case key.Matches(msg, k.Enter):
		if c.Probe == banks.ProbeBaseline || len(v.conds) == 0 {
			v.status, v.statusErr = "the baseline adds no instruction; pick a probe", true
			return nil
		}
		return v.startEdit(editWording, "› ", c.Instruction)
	case key.Matches(msg, k.Clause):
		i := v.attrIndex(c)
		if i < 0 {
			v.status, v.statusErr = "only attribute probes have a clause", true
			return nil
		}
		return v.startEdit(editClause, "› ", v.bank.Attributes[i].Clause)
	case key.Matches(msg, k.AddAttr):
		return v.startEdit(editNewAttr, "› ", "")
	case key.Matches(msg, k.DelAttr):
		if v.removeSelected() {
			return a.bankChanged()
		}
	case key.Matches(msg, k.NextBank):
		v.nextBuiltin()
		v.origHash = v.bank.Hash()
		return a.bankChanged()
	case key.Matches(msg, k.SaveBank):
		return v.startEdit(editSave, "› ", v.bank.Name+".toml")
	case key.Matches(msg, k.ScreenBank):
		return a.startScreen()
	}
	return nil
}

// bankEditKey routes keys to the Bank screen's text input.
func (a *App) bankEditKey(msg tea.KeyPressMsg) tea.Cmd {
	v := &a.bank
	switch msg.String() {
	case "enter":
		path, changed := v.commitEdit()
		if path != "" {
			return saveBankCmd(v.bank.Clone(), path)
		}
		if changed {
			if !strings.HasSuffix(v.source, " (edited)") {
				v.source += " (edited)"
			}
			return a.bankChanged()
		}
		return nil
	case "esc":
		v.editing = false
		v.input.Blur()
		return nil
	}
	var cmd tea.Cmd
	v.input, cmd = v.input.Update(msg)
	return cmd
}

// bankChanged follows a new bank version: the study and the preview use
// it, and the Run screen re-estimates.
func (a *App) bankChanged() tea.Cmd {
	a.study.Bank = a.bank.bank
	a.bank.Refresh(a.data.Context(), a.data.Candidate())
	return tea.Batch(a.replan(), a.refreshBankSignal())
}

// dataKey handles the Data screen's own keys.
func (a *App) dataKey(msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	switch {
	case key.Matches(msg, k.Inspect):
		return a.startInspect(screenData)
	case key.Matches(msg, k.Import):
		if a.study.Store == nil {
			a.data.status, a.data.statusErr = errNoWorkspace.Error(), true
			return nil
		}
		im := newImporter(a.importDir, a.height)
		a.modal = im
		return im.Init()
	case key.Matches(msg, k.PickDataset):
		if a.study.Store == nil {
			return nil
		}
		return listDatasetsCmd(a.ctx, a.study.Store)
	}
	return nil
}

// handleOther takes the messages no dialog or input claimed.
func (a *App) handleOther(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case bankSavedMsg:
		if msg.err != nil {
			a.bank.status, a.bank.statusErr = "save: "+msg.err.Error(), true
		} else {
			a.bank.status, a.bank.statusErr = "saved "+msg.path+" ("+shortHash(msg.hash)+")", false
			a.bank.source = msg.path
		}
	case datasetListMsg:
		if msg.err != nil {
			a.data.status, a.data.statusErr = msg.err.Error(), true
			return nil
		}
		a.study.Datasets = msg.names
		a.modal = newDatasetChooser(msg.names, a.study.Dataset.Name)
	case datasetMsg:
		return a.onDataset(msg)
	default:
		if a.bank.editing {
			var cmd tea.Cmd
			a.bank.input, cmd = a.bank.input.Update(msg)
			return cmd
		}
	}
	return nil
}
