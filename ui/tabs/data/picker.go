package data

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"unsafe"

	"charm.land/bubbles/v2/filepicker"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The import dialog's file step: a Bubbles file picker browsed with the
// arrows and enter, and a path input that takes every key typed. The
// picker's own letter keys (h, l, j, k, g, …) are taken away: a newcomer
// typing "topical_chat" must not climb a directory at its h.

// pickerKeys are the picker's keys: arrows, enter and page keys only.
func pickerKeys() filepicker.KeyMap {
	return filepicker.KeyMap{
		GoToTop:  key.NewBinding(key.WithKeys("home")),
		GoToLast: key.NewBinding(key.WithKeys("end")),
		Down:     key.NewBinding(key.WithKeys("down")),
		Up:       key.NewBinding(key.WithKeys("up")),
		PageUp:   key.NewBinding(key.WithKeys("pgup")),
		PageDown: key.NewBinding(key.WithKeys("pgdown")),
		Back:     key.NewBinding(key.WithKeys("left")),
		Open:     key.NewBinding(key.WithKeys("right", "enter")),
		Select:   key.NewBinding(key.WithKeys("enter")),
	}
}

// newPicker is a file picker listing dir (absolute, so that going up
// passes the start: the parent of "." is "." again), h rows high.
func newPicker(dir string, h int, dirAllowed bool) filepicker.Model {
	fp := filepicker.New()
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	fp.CurrentDirectory = dir
	fp.AutoHeight = false
	fp.ShowPermissions = false
	fp.DirAllowed = dirAllowed
	fp.KeyMap = pickerKeys()
	fp.SetHeight(h)
	return fp
}

// isBrowseKey says whether km moves in the picker rather than edits the
// typed path.
func (im *Importer) isBrowseKey(km tea.KeyPressMsg) bool {
	k := im.fp.KeyMap
	return key.Matches(km, k.Up, k.Down, k.PageUp, k.PageDown, k.GoToTop, k.GoToLast, k.Back, k.Open)
}

// pickKey handles a key on the file step: esc goes back to the formats;
// enter reads the typed path when there is one; backspace on an empty
// path goes up a directory; arrows, page keys and enter browse; any
// other key edits the path.
func (im *Importer) pickKey(km tea.KeyPressMsg) tea.Cmd {
	typed := strings.TrimSpace(im.pathIn.Value())
	switch {
	case km.String() == "esc":
		im.step = ImportFormat
		return nil
	case km.String() == "enter" && typed != "":
		return im.openTyped(typed)
	case km.String() == "backspace" && im.pathIn.Value() == "":
		return im.browse(tea.KeyPressMsg{Code: tea.KeyLeft})
	case im.isBrowseKey(km):
		return im.browse(km)
	}
	var cmd tea.Cmd
	im.pathIn, cmd = im.pathIn.Update(km)
	return cmd
}

// browse passes msg to the picker; a file chosen is read.
func (im *Importer) browse(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	im.fp, cmd = im.fp.Update(im.hideOwn(msg))
	if ok, path := im.fp.DidSelectFile(msg); ok {
		im.path, im.step = path, ImportReading
		return readCmd(im.format(), path)
	}
	return cmd
}

// openTyped opens the path typed, relative to the picker's directory: a
// file (or, for a format read from a directory, a directory) is read, a
// directory is listed, a path that is not there is an error naming it.
func (im *Importer) openTyped(typed string) tea.Cmd {
	p := typed
	if rest, ok := strings.CutPrefix(p, "~"); ok && (rest == "" || rest[0] == filepath.Separator) {
		if home, err := os.UserHomeDir(); err == nil {
			p = home + rest
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(im.fp.CurrentDirectory, p)
	}
	info, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		im.err = fmt.Sprintf("%s: no such file or directory", p)
		return nil
	case err != nil:
		im.err = err.Error()
		return nil
	case info.IsDir() && !im.fp.DirAllowed:
		im.fp = newPicker(p, im.fp.Height(), false)
		im.pathIn.SetValue("")
		return im.fp.Init()
	}
	im.path, im.step = p, ImportReading
	return readCmd(im.format(), p)
}

// hideOwn drops the open workspace's own files (its database and SQLite's
// -wal and -shm beside it) from a listing of the workspace's directory
// that msg carries, so that they are never offered for import. The
// picker has no filter of its own and its listing message is
// unexported: its entries are replaced through reflection, and a
// listing of another shape is passed on as it is.
func (im *Importer) hideOwn(msg tea.Msg) tea.Msg {
	st := im.svc.Store()
	rv := reflect.ValueOf(msg)
	if st == nil || rv.Kind() != reflect.Struct || rv.Type().PkgPath() != reflect.TypeFor[filepicker.Model]().PkgPath() {
		return msg
	}
	if filepath.Dir(st.Path()) != im.fp.CurrentDirectory {
		return msg
	}
	cp := reflect.New(rv.Type()).Elem()
	cp.Set(rv)
	f := cp.FieldByName("entries")
	if !f.IsValid() || f.Type() != reflect.TypeFor[[]os.DirEntry]() {
		return msg
	}
	entries := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Interface().(*[]os.DirEntry)
	own := filepath.Base(st.Path())
	var kept []os.DirEntry
	for _, e := range *entries {
		if n := e.Name(); n != own && n != own+"-wal" && n != own+"-shm" {
			kept = append(kept, e)
		}
	}
	*entries = kept
	return cp.Interface()
}
