package ui

import (
	"fmt"
	"os"
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/banks"
)

// Bank editing: every change is made on a copy of the bank and kept only
// when the copy validates, so the bank the Run screen plans from is always
// a valid one.

// editTarget says what the Bank screen's text input is editing.
type editTarget int

const (
	editNone    editTarget = iota
	editWording            // the selected condition's instruction
	editClause             // the selected attribute's clause
	editNewAttr            // "name: clause" of a new attribute
	editSave               // the file to save the bank to
)

// bankSavedMsg reports a finished save.
type bankSavedMsg struct {
	path, hash string
	err        error
}

// saveBankCmd writes the bank as TOML to path.
func saveBankCmd(b *banks.Bank, path string) tea.Cmd {
	return func() tea.Msg {
		data, err := b.Marshal()
		if err == nil {
			err = os.WriteFile(path, data, 0o644)
		}
		return bankSavedMsg{path: path, hash: b.Hash(), err: err}
	}
}

// startEdit opens the text area on target with an initial value.
func (v *bankScreen) startEdit(t editTarget, value string) tea.Cmd {
	v.editing, v.target = true, t
	v.listOffset = v.list.offset
	v.input = newEditArea(t == editWording)
	v.layout()
	v.input.SetValue(value) // leaves the cursor at the end
	v.status, v.statusErr = "", false
	return v.input.Focus()
}

// endEdit closes the text area and gives its lines back to the list,
// scrolled as before the edit.
func (v *bankScreen) endEdit() {
	v.editing = false
	v.input.Blur()
	v.list.offset = v.listOffset
	v.layout()
}

// newEditArea is the Bank screen's text input: a textarea, so that a
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
func (v *bankScreen) selected() banks.Condition {
	if len(v.conds) == 0 {
		return banks.Condition{}
	}
	return v.conds[v.list.Cursor()]
}

// attrIndex is the index of the attribute of a ± condition, or -1.
func (v *bankScreen) attrIndex(c banks.Condition) int {
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
func (v *bankScreen) apply(nb *banks.Bank, what string) bool {
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

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// commitEdit applies the text input to the bank.
func (v *bankScreen) commitEdit() (saveTo string, changed bool) {
	val := strings.TrimSpace(v.input.Value())
	if v.target != editWording {
		// A pasted newline has no place in a one-line value.
		val = strings.ReplaceAll(val, "\n", " ")
	}
	v.endEdit()
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
		return "", v.apply(nb, "wording of "+c.Probe)
	case editClause:
		nb.Attributes[v.attrIndex(c)].Clause = val
		return "", v.apply(nb, "clause of "+c.Probe)
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

// removeSelected removes the attribute (or neutral, or context probe) of
// the selected condition.
func (v *bankScreen) removeSelected() bool {
	c := v.selected()
	kind, name, _ := banks.ProbeKind(c.Probe)
	nb := v.bank.Clone()
	switch kind {
	case "plus", "minus":
		i := v.attrIndex(c)
		nb.Attributes = append(nb.Attributes[:i], nb.Attributes[i+1:]...)
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

func (v *bankScreen) selectProbe(probe string) {
	for i, c := range v.conds {
		if c.Probe == probe {
			v.list.Select(i)
			return
		}
	}
}

// nextBuiltin switches to the built-in bank after the current one.
func (v *bankScreen) nextBuiltin() {
	all := banks.Builtins()
	if len(all) == 0 {
		return
	}
	next := all[0]
	for i, b := range all {
		if b.Name == v.bank.Name {
			next = all[(i+1)%len(all)]
		}
	}
	v.setBank(next.Clone(), "builtin:"+next.Name)
	v.list.Select(0)
	v.status, v.statusErr = fmt.Sprintf("built-in bank %s (%s)", next.Name, shortHash(next.Hash())), false
	if _, ok := next.Tasks[v.task]; !ok {
		v.status, v.statusErr = fmt.Sprintf("bank %s has no %s task prompt", next.Name, v.task), true
	}
}
