package widgets

import (
	"strings"

	"github.com/prism-eval/prism/ui/styles"
)

// List is a scrolling, single-selection list of pre-rendered rows. It is a
// plain component: the App moves it and asks it to render. (Bubbles' list
// and table bring their own title, pagination, filter and header chrome;
// the panes need only the rows, with the pane's ellipsis and cursor style.)
type List struct {
	rows           []string
	cursor, offset int
	width, height  int
}

func (l *List) SetRows(rows []string) {
	l.rows = rows
	l.clamp()
}

func (l *List) SetSize(w, h int) {
	l.width, l.height = max(w, 0), max(h, 0)
	l.clamp()
}

// Move moves the cursor by delta rows, keeping it visible.
func (l *List) Move(delta int) {
	l.cursor += delta
	l.clamp()
}

// Select puts the cursor on row i.
func (l *List) Select(i int) {
	l.cursor = i
	l.clamp()
}

// Offset is the first row shown; SetOffset puts it back as it was (the
// Bank tab restores it after an edit; the next move clamps it).
func (l *List) Offset() int { return l.offset }

func (l *List) SetOffset(o int) { l.offset = o }

// Height is the number of rows shown.
func (l *List) Height() int { return l.height }

// Cursor is the selected row index (0 for an empty list).
func (l *List) Cursor() int { return l.cursor }

// RowAt maps a line y inside the list's area to a row index, or -1.
func (l *List) RowAt(y int) int {
	i := l.offset + y
	if y < 0 || y >= l.height || i >= len(l.rows) {
		return -1
	}
	return i
}

func (l *List) clamp() {
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
func (l *List) View(st *styles.Styles, focused bool) string {
	lines := make([]string, 0, l.height)
	for i := l.offset; i < len(l.rows) && len(lines) < l.height; i++ {
		row := Fit(l.rows[i], l.width)
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
