package ui

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// lineEdit is a one-line text editor: the Run form fields' input. Its
// cursor does not blink, so frames are deterministic.
type lineEdit struct {
	Prompt string
	value  []rune
	pos    int // cursor, 0…len(value)
	width  int
	focus  bool
}

func newLineEdit() lineEdit { return lineEdit{} }

func (e *lineEdit) SetValue(s string) { e.value = []rune(s); e.pos = len(e.value) }
func (e *lineEdit) Value() string     { return string(e.value) }
func (e *lineEdit) CursorEnd()        { e.pos = len(e.value) }
func (e *lineEdit) SetWidth(w int)    { e.width = w }
func (e *lineEdit) Focus() tea.Cmd    { e.focus = true; return nil }
func (e *lineEdit) Blur()             { e.focus = false }

// insert puts text at the cursor, dropping control characters (a pasted
// newline would end up in a one-line wording).
func (e *lineEdit) insert(s string) {
	rs := []rune(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r == '\r' {
			return ' '
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s))
	e.value = append(e.value[:e.pos], append(rs, e.value[e.pos:]...)...)
	e.pos += len(rs)
}

// Update edits the value for a key press or a paste.
func (e *lineEdit) Update(msg tea.Msg) (lineEdit, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		e.insert(msg.Content)
	case tea.KeyPressMsg:
		switch msg.String() {
		case "left", "ctrl+b":
			e.pos = max(e.pos-1, 0)
		case "right", "ctrl+f":
			e.pos = min(e.pos+1, len(e.value))
		case "home", "ctrl+a":
			e.pos = 0
		case "end", "ctrl+e":
			e.pos = len(e.value)
		case "backspace", "ctrl+h":
			if e.pos > 0 {
				e.value = append(e.value[:e.pos-1], e.value[e.pos:]...)
				e.pos--
			}
		case "delete", "ctrl+d":
			if e.pos < len(e.value) {
				e.value = append(e.value[:e.pos], e.value[e.pos+1:]...)
			}
		case "ctrl+u":
			e.value, e.pos = e.value[e.pos:], 0
		case "ctrl+k":
			e.value = e.value[:e.pos]
		case "ctrl+w":
			i := e.pos
			for i > 0 && e.value[i-1] == ' ' {
				i--
			}
			for i > 0 && e.value[i-1] != ' ' {
				i--
			}
			e.value = append(e.value[:i], e.value[e.pos:]...)
			e.pos = i
		default:
			if msg.Text != "" {
				e.insert(msg.Text)
			}
		}
	}
	return *e, nil
}

// View shows the prompt and the part of the value around the cursor that
// fits the width, the cursor cell in reverse video.
func (e *lineEdit) View() string {
	w := max(e.width, 1)
	// Scroll so the cursor stays visible.
	start := 0
	if e.pos >= w {
		start = e.pos - w + 1
	}
	vis := e.value[start:min(len(e.value), start+w)]
	cur := e.pos - start
	var b strings.Builder
	b.WriteString(e.Prompt)
	b.WriteString(string(vis[:min(cur, len(vis))]))
	under := " "
	if cur < len(vis) {
		under = string(vis[cur])
	}
	if e.focus {
		b.WriteString(lipgloss.NewStyle().Reverse(true).Render(under))
	} else {
		b.WriteString(under)
	}
	if cur+1 < len(vis) {
		b.WriteString(string(vis[cur+1:]))
	}
	return ansi.Truncate(b.String(), w+lipgloss.Width(e.Prompt)+1, "")
}
