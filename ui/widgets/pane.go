package widgets

import (
	"github.com/prism-eval/prism/ui/styles"
)

// Pane chrome: a rounded border (1 cell each side) and 1 cell of padding
// left and right.
const (
	PaneChromeW = 4
	PaneChromeH = 2
)

// pane draws a bordered box of exactly w×h cells with a title line and
// body (already sized to w-PaneChromeW × h-PaneChromeH-1).
func Pane(st *styles.Styles, focused bool, w, h int, title, body string) string {
	s := st.Pane
	if focused {
		s = st.PaneOn
	}
	inner := w - PaneChromeW
	content := st.Title.Render(Fit(title, inner)) + "\n" + body
	return s.Width(w).Height(h).Render(content)
}
