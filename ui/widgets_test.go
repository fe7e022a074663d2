package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/ui/widgets"
)

// The Run form's text input keeps the editing keys the hand-made editor it
// replaced had, and keeps a value on one line.
func TestFieldInput(t *testing.T) {
	t.Parallel()
	e := widgets.FieldInput()
	e.SetValue("hello world")
	e.CursorEnd()
	e.Focus()
	steps := []struct {
		key  string
		want string
		pos  int
	}{
		{"ctrl+w", "hello ", 6},
		{"home", "hello ", 0},
		{"delete", "ello ", 0},
		{"right", "ello ", 1},
		{"backspace", "llo ", 0},
		{"end", "llo ", 4},
		{"left", "llo ", 3},
		{"ctrl+k", "llo", 3},
		{"ctrl+u", "", 0},
	}
	for _, s := range steps {
		e, _ = e.Update(keyMsg(s.key))
		if e.Value() != s.want || e.Position() != s.pos {
			t.Fatalf("after %s: %q at %d, want %q at %d", s.key, e.Value(), e.Position(), s.want, s.pos)
		}
	}
	e, _ = e.Update(tea.KeyPressMsg{Code: 'é', Text: "é"})
	e, _ = e.Update(tea.PasteMsg{Content: "a\nb\x07c"})
	if e.Value() != "éa bc" {
		t.Fatalf("typed and pasted: %q, want %q", e.Value(), "éa bc")
	}
	e.SetWidth(3)
	e.SetCursor(e.Position())
	if w := ansi.StringWidth(e.View()); w > 4 {
		t.Errorf("view is %d wide, want at most width+1", w)
	}
	// The cursor does not blink: focusing schedules no tick.
	if cmd := e.Focus(); cmd != nil {
		t.Error("focusing the input started a blink")
	}
}

func engineDefaults() judge.Config { return judge.Defaults() }
