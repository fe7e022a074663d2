package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/filepicker"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
)

// importer is the Data screen's import dialog: choose a format, pick a
// file, and the dataset is read and stored in one transaction (so a bad
// file stores nothing); an error stays in the dialog, naming file, line
// and field as the loader reports them.
type importer struct {
	step    int // 0: format, 1: file, 2: importing
	formats []string
	l       list
	fp      filepicker.Model
	err     string
}

// importedMsg reports an import: the stored dataset or why not.
type importedMsg struct {
	ds  *model.Dataset
	err error
}

// importFormats are the loaders offered: every file format (the demo
// needs no file).
func importFormats() []string {
	var out []string
	for _, f := range datasets.Formats() {
		if f != datasets.FormatDemo {
			out = append(out, f)
		}
	}
	return out
}

func newImporter(dir string, height int) *importer {
	im := &importer{formats: importFormats()}
	im.l.SetRows(im.formats)
	im.fp = filepicker.New()
	im.fp.CurrentDirectory = dir
	im.fp.AutoHeight = false
	im.fp.ShowPermissions = false
	im.fp.KeyMap.Back = key.NewBinding(key.WithKeys("h", "backspace", "left"), key.WithHelp("h", "up a directory"))
	im.fp.SetHeight(max(height-14, 3))
	return im
}

// Init lists the starting directory.
func (im *importer) Init() tea.Cmd { return im.fp.Init() }

// importCmd reads path with the format's loader and stores the dataset.
// store.PutDataset is one transaction: nothing is half-imported.
func importCmd(ctx context.Context, st *store.Store, format, path string) tea.Cmd {
	return func() tea.Msg {
		ds, err := datasets.Load(format, path)
		if err != nil {
			return importedMsg{err: err}
		}
		if ds.Name == "" {
			ds.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		}
		if err := st.PutDataset(ctx, ds, false); err != nil {
			return importedMsg{err: err}
		}
		return importedMsg{ds: ds}
	}
}

func (im *importer) format() string { return im.formats[im.l.Cursor()] }

func (im *importer) Update(a *App, msg tea.Msg) tea.Cmd {
	if m, ok := msg.(importedMsg); ok {
		if m.err != nil {
			im.step, im.err = 1, m.err.Error()
			return nil
		}
		a.modal = nil
		a.study.Datasets = append(a.study.Datasets, m.ds.Name)
		return a.onDataset(datasetMsg{ds: m.ds})
	}
	km, isKey := msg.(tea.KeyPressMsg)
	if isKey && km.String() == "esc" {
		if im.step == 1 {
			im.step, im.err = 0, ""
		} else if im.step == 0 {
			a.modal = nil
		}
		return nil
	}
	if isKey && km.String() == "ctrl+c" {
		return tea.Quit
	}
	switch im.step {
	case 0:
		if !isKey {
			var cmd tea.Cmd
			im.fp, cmd = im.fp.Update(msg) // the first directory listing
			return cmd
		}
		switch {
		case key.Matches(km, a.keys.Up):
			im.l.Move(-1)
		case key.Matches(km, a.keys.Down):
			im.l.Move(1)
		case key.Matches(km, a.keys.Enter):
			im.step = 1
			im.fp.DirAllowed = im.format() == datasets.FormatJudgeBench
		}
	case 1:
		var cmd tea.Cmd
		im.fp, cmd = im.fp.Update(msg)
		if ok, path := im.fp.DidSelectFile(msg); ok {
			im.step, im.err = 2, ""
			return importCmd(a.ctx, a.study.Store, im.format(), path)
		}
		return cmd
	}
	return nil
}

func (im *importer) View(a *App, st *styles.Styles) string {
	w := min(max(a.width*3/4, 56), a.width-2)
	iw := w - paneChromeW
	var lines []string
	switch im.step {
	case 0:
		h := min(len(im.formats), 9)
		im.l.SetSize(iw, h)
		lines = append(lines, "Format of the file:")
		lines = append(lines, strings.Split(im.l.View(st, true), "\n")...)
		lines = append(lines, "", st.Muted.Render("enter choose · esc close"))
	case 1, 2:
		lines = append(lines, fmt.Sprintf("Format %s · pick a file in %s", im.format(), im.fp.CurrentDirectory))
		for _, ln := range strings.Split(strings.TrimRight(im.fp.View(), "\n"), "\n") {
			lines = append(lines, fit(ln, iw))
		}
		if im.step == 2 {
			lines = append(lines, st.Warn.Render("importing…"))
		}
		if im.err != "" {
			lines = append(lines, wrapStyled(st.Bad, "not imported: "+im.err, iw)...)
		}
		lines = append(lines, "", st.Muted.Render("enter open/import · h up a directory · esc formats"))
	}
	return dialog(st, w, "Import a dataset", lines)
}
