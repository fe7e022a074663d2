package ui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/ui/styles"
)

// list is a scrolling, single-selection list of pre-rendered rows. It is a
// plain component: the App moves it and asks it to render. (Bubbles' list
// and table bring their own title, pagination, filter and header chrome;
// the panes need only the rows, with the pane's ellipsis and cursor style.)
type list struct {
	rows           []string
	cursor, offset int
	width, height  int
}

func (l *list) SetRows(rows []string) {
	l.rows = rows
	l.clamp()
}

func (l *list) SetSize(w, h int) {
	l.width, l.height = max(w, 0), max(h, 0)
	l.clamp()
}

// Move moves the cursor by delta rows, keeping it visible.
func (l *list) Move(delta int) {
	l.cursor += delta
	l.clamp()
}

// Select puts the cursor on row i.
func (l *list) Select(i int) {
	l.cursor = i
	l.clamp()
}

// Cursor is the selected row index (0 for an empty list).
func (l *list) Cursor() int { return l.cursor }

// RowAt maps a line y inside the list's area to a row index, or -1.
func (l *list) RowAt(y int) int {
	i := l.offset + y
	if y < 0 || y >= l.height || i >= len(l.rows) {
		return -1
	}
	return i
}

func (l *list) clamp() {
	l.cursor = min(l.cursor, len(l.rows)-1)
	l.cursor = max(l.cursor, 0)
	if l.height <= 0 {
		return
	}
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+l.height {
		l.offset = l.cursor - l.height + 1
	}
	l.offset = max(min(l.offset, len(l.rows)-l.height), 0)
}

// View renders exactly height lines of width cells.
func (l *list) View(st *styles.Styles, focused bool) string {
	lines := make([]string, 0, l.height)
	for i := l.offset; i < len(l.rows) && len(lines) < l.height; i++ {
		row := fit(l.rows[i], l.width)
		switch {
		case i == l.cursor && focused:
			row = st.Selected.Render(row)
		case i == l.cursor:
			row = st.Cursor.Render(row)
		}
		lines = append(lines, row)
	}
	for len(lines) < l.height {
		lines = append(lines, strings.Repeat(" ", l.width))
	}
	return strings.Join(lines, "\n")
}

// fit truncates s to w cells (with an ellipsis) and pads it to exactly w.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = ansi.Truncate(s, w, "…")
	if pad := w - lipgloss.Width(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// wrap word-wraps plain text to w cells and returns its lines.
func wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	return strings.Split(ansi.Wrap(s, w, " -"), "\n")
}

// block renders lines into exactly w×h cells, dropping lines past h.
// Scrolling panes (the Bank preview, Select, Fit, Inspect, Compare) rebuild
// their lines from state and width at every frame and show lines[scroll:]
// through block. Bubbles' viewport would hold a copy of those lines and the
// same offset, and it cuts a long line without the ellipsis and pads
// through lipgloss: every golden with a clipped line would change for no
// gain to the user, so the panes keep this.
func block(lines []string, w, h int) string {
	out := make([]string, 0, h)
	for _, ln := range lines {
		if len(out) == h {
			break
		}
		out = append(out, fit(ln, w))
	}
	for len(out) < h {
		out = append(out, strings.Repeat(" ", max(w, 0)))
	}
	return strings.Join(out, "\n")
}
