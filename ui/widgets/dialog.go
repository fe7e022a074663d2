package widgets

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/ui/styles"
)

// Overlay draws box centred over base (w×h cells), line by line.
func Overlay(base, box string, w, h int) string {
	lines := strings.Split(base, "\n")
	boxLines := strings.Split(box, "\n")
	bw := lipgloss.Width(box)
	top := max((h-len(boxLines))/2, 0)
	left := max((w-bw)/2, 0)
	for i, bl := range boxLines {
		y := top + i
		if y >= len(lines) {
			break
		}
		ln := lines[y]
		lines[y] = ansi.Truncate(ln, left, "") + bl + ansi.TruncateLeft(ln, left+bw, "")
	}
	return strings.Join(lines, "\n")
}

// Dialog frames a dialog's lines in a focused pane of width w.
func Dialog(st *styles.Styles, w int, title string, lines []string) string {
	inner := w - PaneChromeW
	return Pane(st, true, w, len(lines)+PaneChromeH+1, title, Block(lines, inner, len(lines)))
}

// ConfirmLines lays out a confirmation: the first line plain, the rest
// muted, each wrapped to w, then the y and n keys.
func ConfirmLines(st *styles.Styles, w int, lines []string, yes, no string) []string {
	var out []string
	for i, ln := range lines {
		style := st.Text
		if i > 0 {
			style = st.Muted
		}
		out = append(out, WrapStyled(style, ln, w)...)
	}
	return append(out, "", st.Label.Render("y")+" "+yes+"   "+st.Label.Render("n")+" "+no)
}

// FieldInput is a text input with no prompt (a label names it), unstyled
// like the forms around it, and a cursor that does not blink (a blinking
// cursor would tick and change frames).
func FieldInput() textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	plain := lipgloss.NewStyle()
	state := textinput.StyleState{Text: plain, Placeholder: plain, Suggestion: plain, Prompt: plain}
	in.SetStyles(textinput.Styles{Focused: state, Blurred: state, Cursor: textinput.CursorStyle{Blink: false}})
	return in
}
