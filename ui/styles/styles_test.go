package styles

import (
	"testing"
)

func TestNoColorKeepsSelectionVisible(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	s := New(true)
	if !s.Selected.GetReverse() || !s.Cursor.GetUnderline() {
		t.Error("under NO_COLOR the selection needs reverse video and the cursor an underline")
	}
	t.Setenv("NO_COLOR", "")
	if s := New(true); s.Selected.GetReverse() {
		t.Error("reverse video without NO_COLOR")
	}
}

func TestLightAndDarkDiffer(t *testing.T) {
	d, l := TokensFor(true), TokensFor(false)
	if d.Fg == l.Fg || d.Accent == l.Accent {
		t.Error("light and dark backgrounds get the same foreground or accent")
	}
}
