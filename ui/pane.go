package ui

import (
	"github.com/prism-eval/prism/ui/styles"
)

// Pane chrome: a rounded border (1 cell each side) and 1 cell of padding
// left and right.
const (
	paneChromeW = 4
	paneChromeH = 2
)

// pane draws a bordered box of exactly w×h cells with a title line and
// body (already sized to w-paneChromeW × h-paneChromeH-1).
func pane(st *styles.Styles, focused bool, w, h int, title, body string) string {
	s := st.Pane
	if focused {
		s = st.PaneOn
	}
	inner := w - paneChromeW
	content := st.Title.Render(fit(title, inner)) + "\n" + body
	return s.Width(w).Height(h).Render(content)
}
