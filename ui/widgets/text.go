package widgets

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// fit truncates s to w cells (with an ellipsis) and pads it to exactly w.
func Fit(s string, w int) string {
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
func Wrap(s string, w int) []string {
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
func Block(lines []string, w, h int) string {
	out := make([]string, 0, h)
	for _, ln := range lines {
		if len(out) == h {
			break
		}
		out = append(out, Fit(ln, w))
	}
	for len(out) < h {
		out = append(out, strings.Repeat(" ", max(w, 0)))
	}
	return strings.Join(out, "\n")
}

// Clip truncates plain text to w cells with an ellipsis.
func Clip(s string, w int) string {
	if lipgloss.Width(s) <= w {
		return s
	}
	return strings.TrimRight(Fit(s, w), " ")
}

// WrapStyled wraps plain text to w and styles each line.
func WrapStyled(s lipgloss.Style, text string, w int) []string {
	lines := Wrap(text, w)
	for i := range lines {
		lines[i] = s.Render(lines[i])
	}
	return lines
}

// WrapSpacesStyled wraps text to w cells at spaces only, so that signs
// stay with their numbers and paths and commands read whole (a word
// longer than w is broken), and styles each line.
func WrapSpacesStyled(s lipgloss.Style, text string, w int) []string {
	if w <= 0 {
		return nil
	}
	lines := strings.Split(ansi.Wrap(text, w, " "), "\n")
	for i := range lines {
		lines[i] = s.Render(strings.TrimRight(lines[i], " "))
	}
	return lines
}

// Percent is a tab's progress badge: " 42%".
func Percent(done, total int) string { return fmt.Sprintf(" %d%%", 100*done/total) }

// FitStyled is each of lines fitted to w cells (Fit), then styled with
// s: a block of notes, one a line.
func FitStyled(s lipgloss.Style, lines []string, w int) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, s.Render(Fit(l, w)))
	}
	return out
}
