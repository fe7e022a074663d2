package bank

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/ui/widgets"
)

// Bank editing: every change is made on a copy of the bank and kept only
// when the copy validates, so the bank the Run tab plans from is always
// a valid one.

// editTarget says what the Bank tab's text input is editing.
type editTarget int

const (
	editNone    editTarget = iota
	editWording            // the selected condition's instruction
	editClause             // the selected attribute's clause
	editNewAttr            // "name: clause" of a new attribute
	editSave               // the file to save the bank to
)

// bankSavedMsg reports a finished save; exists says the file was there
// and was left alone (a save that replaces it asks first).
type bankSavedMsg struct {
	path, name, hash string
	exists           bool
	err              error
}

// saveBankCmd writes the bank as TOML to path; an existing file is
// replaced only when replace is set.
func saveBankCmd(b *banks.Bank, path string, replace bool) tea.Cmd {
	return func() tea.Msg {
		data, err := bankFile(b)
		if err != nil {
			return bankSavedMsg{path: path, err: err}
		}
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if !replace {
			flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
		}
		f, err := os.OpenFile(path, flags, 0o644)
		if errors.Is(err, fs.ErrExist) {
			return bankSavedMsg{path: path, name: b.Name, hash: b.Hash(), exists: true}
		}
		if err == nil {
			_, err = f.Write(data)
			err = errors.Join(err, f.Close())
		}
		return bankSavedMsg{path: path, name: b.Name, hash: b.Hash(), err: err}
	}
}

// FileDocs is where a saved bank file's header sends its reader: the
// section of docs/banks.md that describes every key.
const FileDocs = `docs/banks.md, section "Bank file format (TOML)"`

// bankFile is the text the Bank tab saves: the bank's TOML under a
// header that names the bank and points at FileDocs. Marshal's own header
// stays as it is, since its text is also the snapshot stored with every
// run's answers and a stored snapshot never changes.
func bankFile(b *banks.Bank) ([]byte, error) {
	data, err := b.Marshal()
	if err != nil {
		return nil, err
	}
	if head, body, ok := bytes.Cut(data, []byte("\n\n")); ok && bytes.HasPrefix(head, []byte("#")) {
		data = body
	}
	header := fmt.Sprintf("# prism probe bank %s, saved from the Bank tab. Check it with: prism bank validate FILE\n"+
		"# Every key is described in %s. Changing any wording changes the bank's hash.\n\n", b.Name, FileDocs)
	return append([]byte(header), data...), nil
}

// startEdit opens the text area on target with an initial value.
func (v *Tab) startEdit(t editTarget, value string) tea.Cmd {
	v.editing, v.target = true, t
	v.listOffset = v.list.Offset()
	v.input = newEditArea(t == editWording)
	v.layout()
	v.input.SetValue(value) // leaves the cursor at the end
	v.status, v.statusErr = "", false
	return v.input.Focus()
}

// endEdit closes the text area and gives its lines back to the list,
// scrolled as before the edit.
func (v *Tab) endEdit() {
	v.editing = false
	v.input.Blur()
	v.list.SetOffset(v.listOffset)
	v.layout()
}

// newEditArea is the Bank tab's text input: a textarea, so that a
// wording shows whole, wrapped, rather than the end of one line. It is
// unstyled like the panes' text and its cursor does not blink (a blinking
// cursor would tick and change frames). enter keeps the edit (bankctl.go);
// a wording may hold newlines (banks only forbid white space at its ends),
// so there alt+enter and ctrl+j insert one; the other targets are one line.
func newEditArea(newlines bool) textarea.Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.SetPromptFunc(2, func(p textarea.PromptInfo) string {
		if p.LineNumber == 0 {
			return "› "
		}
		return "  "
	})
	plain := lipgloss.NewStyle()
	state := textarea.StyleState{Base: plain, Text: plain, LineNumber: plain, CursorLineNumber: plain,
		CursorLine: plain, EndOfBuffer: plain, Placeholder: plain, Prompt: plain, Selection: plain.Reverse(true)}
	ta.SetStyles(textarea.Styles{Focused: state, Blurred: state, Cursor: textarea.CursorStyle{Blink: false}})
	ta.KeyMap.InsertNewline.SetKeys("alt+enter", "ctrl+j")
	ta.KeyMap.InsertNewline.SetEnabled(newlines)
	return ta
}

// selected is the condition under the cursor (the zero Condition when the
// bank has none).
func (v *Tab) selected() banks.Condition {
	if len(v.conds) == 0 {
		return banks.Condition{}
	}
	return v.conds[v.list.Cursor()]
}

// attrIndex is the index of the attribute of a ± condition, or -1.
func (v *Tab) attrIndex(c banks.Condition) int {
	kind, name, _ := banks.ProbeKind(c.Probe)
	if kind != "plus" && kind != "minus" {
		return -1
	}
	for i, a := range v.bank.Attributes {
		if a.Name == name {
			return i
		}
	}
	return -1
}

// apply validates an edited copy of the bank and adopts it, or reports
// why not and keeps the old one.
func (v *Tab) apply(nb *banks.Bank, what string) bool {
	ownName(nb)
	if err := nb.Validate(); err != nil {
		v.status, v.statusErr = what+": "+firstLine(err.Error()), true
		return false
	}
	old := v.bank.Hash()
	cursor := v.list.Cursor()
	v.setBank(nb, v.source)
	v.list.Select(cursor)
	if h := nb.Hash(); h != old {
		v.status = fmt.Sprintf("new version %.7s (was %.7s)", h, old)
	} else {
		v.status = what + ": unchanged"
	}
	v.statusErr = false
	return true
}

// editedSuffix ends the name of an edited built-in bank.
const editedSuffix = "-edited"

// ownName gives an edited built-in a name of its own ("quality-edited"),
// so a saved file never passes for the built-in; an edit that brings the
// bank back to the built-in gives the built-in back, name and all. The
// name is part of the bank's hash, so it changes with the edit rather
// than at the save, which keeps the hash that answers are stored under.
func ownName(nb *banks.Bank) {
	base := strings.TrimSuffix(nb.Name, editedSuffix)
	bi, err := banks.Builtin(base)
	if err != nil {
		return
	}
	c := nb.Clone()
	c.Name = base
	if templated(c).Hash() == templated(bi.Clone()).Hash() {
		*nb = *bi
		return
	}
	nb.Name = base + editedSuffix
}

// templated drops every explicit list of wordings that equals the
// templates' wordings: a wording edited back to the template's leaves
// such a list, and the bank is the same as without it.
func templated(b *banks.Bank) *banks.Bank {
	for i := range b.Attributes {
		at := &b.Attributes[i]
		bare := *at
		bare.Plus, bare.Minus = nil, nil
		if slices.Equal(at.Plus, bare.Wordings(b.Templates, true)) {
			at.Plus = nil
		}
		if slices.Equal(at.Minus, bare.Wordings(b.Templates, false)) {
			at.Minus = nil
		}
	}
	return b
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// edited is a copy of the bank with val as the wording or clause being
// edited (of the selected condition); the copy is not validated.
func (v *Tab) edited(val string) *banks.Bank {
	c := v.selected()
	nb := v.bank.Clone()
	switch v.target {
	case editWording:
		kind, name, _ := banks.ProbeKind(c.Probe)
		switch kind {
		case "plus", "minus":
			i := v.attrIndex(c)
			a := &nb.Attributes[i]
			plus := kind == "plus"
			// A wording from the templates becomes an explicit list for
			// this attribute and sign, so only this wording changes.
			ws := a.Wordings(nb.Templates, plus)
			ws[c.Wording] = val
			if plus {
				a.Plus = ws
			} else {
				a.Minus = ws
			}
		case "neutral":
			for i := range nb.Neutrals {
				if nb.Neutrals[i].Name == name {
					nb.Neutrals[i].Text = val
				}
			}
		case "context":
			for i := range nb.ContextProbes {
				if nb.ContextProbes[i].Name == name {
					nb.ContextProbes[i].Text = val
				}
			}
		}
	case editClause:
		if i := v.attrIndex(c); i >= 0 {
			nb.Attributes[i].Clause = val
		}
	}
	ownName(nb)
	return nb
}

// editValue is the text input's value as an edit keeps it.
func (v *Tab) editValue() string {
	val := strings.TrimSpace(v.input.Value())
	if v.target != editWording {
		// A pasted newline has no place in a one-line value.
		val = strings.ReplaceAll(val, "\n", " ")
	}
	return val
}

// commitEdit applies the text input to the bank.
func (v *Tab) commitEdit() (saveTo string, changed bool) {
	val := v.editValue()
	v.endEdit()
	c := v.selected()
	nb := v.bank.Clone()
	switch v.target {
	case editWording:
		return "", v.apply(v.edited(val), "wording of "+c.Probe)
	case editClause:
		return "", v.apply(v.edited(val), "clause of "+c.Probe)
	case editNewAttr:
		name, clause, ok := strings.Cut(val, ":")
		name, clause = strings.TrimSpace(name), strings.TrimSpace(clause)
		if !ok || clause == "" {
			v.status, v.statusErr = `new attribute: type "name: clause", e.g. "brevity: brevity"`, true
			return "", false
		}
		nb.Attributes = append(nb.Attributes, banks.Attribute{Name: name, Clause: clause})
		if len(nb.Templates.Plus) == 0 || len(nb.Templates.Minus) == 0 {
			// Without templates a new attribute needs explicit wordings.
			a := &nb.Attributes[len(nb.Attributes)-1]
			a.Plus = []string{"Weigh " + clause + " more heavily when scoring."}
			a.Minus = []string{"Weigh " + clause + " less heavily when scoring."}
		}
		if v.apply(nb, "added "+name) {
			v.selectProbe(banks.PlusProbe(name))
			return "", true
		}
		return "", false
	case editSave:
		if val == "" {
			v.status, v.statusErr = "save: give a file name", true
			return "", false
		}
		return val, false
	}
	return "", false
}

// removeWhat names what x removes for condition c (the attribute, neutral
// clause or context probe) and how many conditions go with it; "" for the
// baseline.
func (v *Tab) removeWhat(c banks.Condition) (what string, n int) {
	kind, name, _ := banks.ProbeKind(c.Probe)
	switch kind {
	case "plus", "minus":
		what = "the attribute " + name
	case "neutral":
		what = "the neutral clause " + name
	case "context":
		what = "the context probe " + name
	default:
		return "", 0
	}
	for _, o := range v.conds {
		if k, nm, _ := banks.ProbeKind(o.Probe); nm == name && (k == kind || (kind == "plus" || kind == "minus") && (k == "plus" || k == "minus")) {
			n++
		}
	}
	return what, n
}

// removeProbe removes the attribute (or neutral, or context probe) of
// condition c.
func (v *Tab) removeProbe(c banks.Condition) bool {
	kind, name, _ := banks.ProbeKind(c.Probe)
	nb := v.bank.Clone()
	switch kind {
	case "plus", "minus":
		i := v.attrIndex(c)
		if i < 0 {
			return false
		}
		nb.Attributes = append(nb.Attributes[:i], nb.Attributes[i+1:]...)
		nb.Joint = nb.Joint.Without(name)
	case "neutral":
		nb.Neutrals = deleteNamed(nb.Neutrals, func(n banks.Neutral) bool { return n.Name == name })
	case "context":
		nb.ContextProbes = deleteNamed(nb.ContextProbes, func(p banks.ContextProbe) bool { return p.Name == name })
	default:
		v.status, v.statusErr = "the baseline cannot be removed", true
		return false
	}
	return v.apply(nb, "removed "+name)
}

func deleteNamed[T any](s []T, match func(T) bool) []T {
	out := s[:0]
	for _, x := range s {
		if !match(x) {
			out = append(out, x)
		}
	}
	return out
}

func (v *Tab) selectProbe(probe string) {
	for i, c := range v.conds {
		if c.Probe == probe {
			v.list.Select(i)
			return
		}
	}
}

// nextBuiltin is the built-in bank after the current one (the first when
// the current one is not a built-in or an edited one).
func (v *Tab) nextBuiltin() *banks.Bank {
	all := banks.Builtins()
	if len(all) == 0 {
		return nil
	}
	next := all[0]
	cur := strings.TrimSuffix(v.bank.Name, editedSuffix)
	for i, b := range all {
		if b.Name == cur {
			next = all[(i+1)%len(all)]
		}
	}
	return next
}

// switchTo opens the built-in bank next.
func (v *Tab) switchTo(next *banks.Bank) {
	v.Open(next.Clone(), "builtin:"+next.Name)
	v.list.Select(0)
	v.status, v.statusErr = fmt.Sprintf("built-in bank %s (%s)", next.Name, widgets.ShortHash(next.Hash())), false
	if _, ok := next.Tasks[v.task]; !ok {
		v.status, v.statusErr = fmt.Sprintf("bank %s has no %s task prompt", next.Name, v.task), true
	}
}
