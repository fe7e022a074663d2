package data

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/filepicker"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// Importer is the Data tab's import dialog: choose a format, pick a
// file (the picker goes up past the directory it starts in), read it,
// name the dataset (the file's name by default), and store it in one
// transaction (so a bad file stores nothing). A name the workspace holds
// already is replaced only after asking. An error stays in the dialog,
// naming file, line and field as the loader reports them, until the next
// key.
type Importer struct {
	svc     Services
	keys    tab.DialogKeys
	step    ImportStep
	formats []string
	l       widgets.List
	fp      filepicker.Model
	pathIn  textinput.Model // a path typed on the file step
	path    string          // the file picked
	ds      *model.Dataset  // the file read, waiting for its name
	name    textinput.Model
	err     string
	done    bool // closed
}

// ImportStep is where the import dialog is.
type ImportStep int

const (
	ImportFormat  ImportStep = iota // choose the format
	ImportPick                      // pick the file
	ImportReading                   // reading the file
	ImportName                      // name the dataset
	ImportStoring                   // storing it
	ImportReplace                   // the name exists: replace it?
)

type (
	// importReadMsg carries the file read, or why not.
	importReadMsg struct {
		ds  *model.Dataset
		err error
	}
	// importedMsg reports a store: the stored dataset or why not.
	importedMsg struct {
		ds  *model.Dataset
		err error
	}
)

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

func newImporter(svc Services, keys tab.DialogKeys, dir string, height int) *Importer {
	im := &Importer{svc: svc, keys: keys, formats: importFormats()}
	im.l.SetRows(im.formats)
	im.fp = newPicker(dir, max(height-16, 3), false)
	im.pathIn = widgets.FieldInput()
	im.pathIn.Prompt = "path › "
	im.pathIn.Focus()
	im.name = widgets.FieldInput() // unstyled, a cursor that does not blink
	im.name.Prompt = "› "
	im.name.CharLimit = 40
	return im
}

// Init lists the starting directory.
func (im *Importer) Init() tea.Cmd { return im.fp.Init() }

// readCmd reads path with the format's loader; nothing is stored yet.
func readCmd(format, path string) tea.Cmd {
	return func() tea.Msg {
		ds, err := datasets.Load(format, path)
		return importReadMsg{ds: ds, err: err}
	}
}

// storeCmd stores the dataset; store.PutDataset is one transaction, so
// nothing is half-imported. replace replaces a dataset of the same name.
func storeCmd(ctx context.Context, st *store.Store, ds *model.Dataset, replace bool) tea.Cmd {
	return func() tea.Msg {
		if err := st.PutDataset(ctx, ds, replace); err != nil {
			return importedMsg{err: err}
		}
		return importedMsg{ds: ds}
	}
}

// defaultDatasetName is the name a dataset read from path is offered: a
// known benchmark's name (the CLI's too: datasets.BenchmarkName), else
// the loader's (the file's name without its extension), lower-cased,
// with what a name cannot hold turned into '-'.
func defaultDatasetName(format, loaded, path string) string {
	if name := datasets.BenchmarkName(format); name != "" {
		return name
	}
	s := loaded
	if s == "" {
		s = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	name := strings.TrimLeft(b.String(), "0123456789_-")
	if len(name) > 40 {
		name = name[:40]
	}
	if name == "" {
		name = "dataset"
	}
	return name
}

func (im *Importer) format() string { return im.formats[im.l.Cursor()] }

// Step, Format, Err, Dir and Name say where the dialog is: its step, the
// format chosen, the error shown, the picker's directory and the name
// typed.
func (im *Importer) Step() ImportStep { return im.step }
func (im *Importer) Format() string   { return im.format() }
func (im *Importer) Err() string      { return im.err }
func (im *Importer) Dir() string      { return im.fp.CurrentDirectory }
func (im *Importer) Name() string     { return im.name.Value() }

// Highlighted is the path under the picker's cursor.
func (im *Importer) Highlighted() string { return im.fp.HighlightedPath() }

// Update is the dialog's (tab.Dialog); done closes it.
func (im *Importer) Update(msg tea.Msg) (done bool, cmd tea.Cmd) {
	cmd = im.update(msg)
	return im.done, cmd
}

func (im *Importer) update(msg tea.Msg) tea.Cmd {
	switch m := msg.(type) {
	case importReadMsg:
		return im.onRead(m)
	case importedMsg:
		return im.onStored(m)
	}
	km, isKey := msg.(tea.KeyPressMsg)
	if isKey && km.String() == "ctrl+c" {
		im.done = true
		return tab.Send(tab.QuitMsg{})
	}
	if isKey && im.step != ImportReading && im.step != ImportStoring {
		im.err = "" // an old error goes at the next key
	}
	switch im.step {
	case ImportFormat:
		if !isKey {
			return im.browse(msg) // the first directory listing
		}
		im.formatKey(km)
	case ImportPick:
		switch m := msg.(type) {
		case tea.KeyPressMsg:
			return im.pickKey(m)
		case tea.PasteMsg:
			var cmd tea.Cmd
			im.pathIn, cmd = im.pathIn.Update(m)
			return cmd
		}
		return im.browse(msg)
	case ImportName:
		return im.nameMsg(msg)
	case ImportReplace:
		if isKey {
			return im.replaceKey(km)
		}
	}
	return nil
}

// onRead takes the file read: its name is asked for, or its error shown
// on the file picker.
func (im *Importer) onRead(m importReadMsg) tea.Cmd {
	if m.err != nil {
		im.step, im.err = ImportPick, m.err.Error()
		return nil
	}
	im.ds, im.step, im.err = m.ds, ImportName, ""
	im.name.SetValue(defaultDatasetName(im.format(), m.ds.Name, im.path))
	im.name.CursorEnd()
	return im.name.Focus()
}

// formatKey moves through the formats; enter picks one, esc closes.
func (im *Importer) formatKey(km tea.KeyPressMsg) {
	switch {
	case km.String() == "esc":
		im.done = true
	case key.Matches(km, im.keys.Up):
		im.l.Move(-1)
	case key.Matches(km, im.keys.Down):
		im.l.Move(1)
	case key.Matches(km, im.keys.Enter):
		im.step = ImportPick
		im.fp.DirAllowed = im.format() == datasets.FormatJudgeBench
	}
}

// nameMsg edits the dataset's name: enter stores it under a valid name,
// esc goes back to the file picker, a paste or another key edits.
func (im *Importer) nameMsg(msg tea.Msg) tea.Cmd {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch km.String() {
		case "esc":
			im.step, im.ds = ImportPick, nil
			im.name.Blur()
			return nil
		case "enter":
			name := strings.TrimSpace(im.name.Value())
			if !model.ValidName(name) {
				im.err = fmt.Sprintf("name %q: %s", name, model.NameRule)
				return nil
			}
			im.ds.Name, im.step = name, ImportStoring
			return storeCmd(im.svc.Context(), im.svc.Store(), im.ds, false)
		}
	}
	var cmd tea.Cmd
	im.name, cmd = im.name.Update(msg)
	return cmd
}

// replaceKey answers whether to replace the dataset of the same name.
func (im *Importer) replaceKey(km tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(km, im.keys.Yes):
		im.step = ImportStoring
		return storeCmd(im.svc.Context(), im.svc.Store(), im.ds, true)
	case key.Matches(km, im.keys.No):
		im.step = ImportName // edit the name instead
		return im.name.Focus()
	}
	return nil
}

// onStored follows a store: the study opens the dataset (the App adds it
// to the workspace's list); a name that
// exists asks to replace; any other refusal (a run acquiring the dataset
// names itself) stays on the name.
func (im *Importer) onStored(m importedMsg) tea.Cmd {
	switch {
	case m.err == nil:
		im.done = true
		return tab.Send(tab.DatasetMsg{Dataset: m.ds, Imported: true})
	case errors.Is(m.err, store.ErrExists):
		im.step = ImportReplace
		im.name.Blur()
	default:
		im.step, im.err = ImportName, m.err.Error()
		return im.name.Focus()
	}
	return nil
}

// count is "1 context", "2 contexts".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// shortDir names a directory for the dialog, the home directory as ~.
func shortDir(dir string) string {
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, dir); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return dir
}

// View draws the dialog for a body width wide. It sizes copies of the
// format list and the name input: View changes nothing (the list holds
// at most 9 formats, all shown, so it never scrolls).
func (im *Importer) View(width, _ int) string {
	st := im.svc.Styles()
	w := min(max(width*3/4, 56), width-2)
	iw := w - widgets.PaneChromeW
	var lines []string
	keys := ""
	switch im.step {
	case ImportFormat:
		l := im.l
		l.SetSize(iw, min(len(im.formats), 9))
		lines = append(lines, "Format of the file:")
		lines = append(lines, strings.Split(l.View(st, true), "\n")...)
		keys = "enter choose · esc close"
	case ImportPick, ImportReading:
		lines = append(lines, widgets.Wrap(fmt.Sprintf("Format %s · pick a file in %s", im.format(), shortDir(im.fp.CurrentDirectory)), iw)...)
		in := im.pathIn
		in.SetWidth(iw - lipgloss.Width(in.Prompt) - 1)
		lines = append(lines, in.View(), "")
		for _, ln := range strings.Split(strings.TrimRight(im.fp.View(), "\n"), "\n") {
			lines = append(lines, widgets.Fit(ln, iw))
		}
		if im.step == ImportReading {
			lines = append(lines, st.Warn.Render("reading…"))
		}
		keys = "type a path · ↑↓←→ browse · enter open · esc formats"
	case ImportName, ImportStoring:
		lines = append(lines, widgets.Wrap(fmt.Sprintf("File %s · format %s · %s · %s", filepath.Base(im.path), im.format(),
			count(len(im.ds.Contexts), "context"), count(im.ds.NumCandidates(), "candidate")), iw)...)
		lines = append(lines, "")
		lines = append(lines, st.Label.Render("Name of the dataset in the workspace:"))
		name := im.name
		name.SetWidth(iw - lipgloss.Width(name.Prompt) - 1)
		lines = append(lines, name.View())
		if im.step == ImportStoring {
			lines = append(lines, st.Warn.Render("importing…"))
		}
		keys = "enter import · esc another file"
	case ImportReplace:
		name := im.ds.Name
		lines = append(lines,
			fmt.Sprintf("The workspace already holds a dataset named %q.", name), "")
		lines = append(lines, widgets.WrapStyled(st.Muted, "Replacing it deletes it and every answer recorded against it; another name keeps both.", iw)...)
		lines = append(lines, "", st.Label.Render("y")+" replace "+name+"   "+st.Label.Render("n")+" change the name")
	}
	if im.err != "" {
		lines = append(lines, widgets.WrapStyled(st.Bad, "not imported: "+im.err, iw)...)
	}
	if keys != "" {
		lines = append(lines, "", st.Muted.Render(keys))
	}
	return widgets.Dialog(st, w, "Import a dataset", lines)
}
