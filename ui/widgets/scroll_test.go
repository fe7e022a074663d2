package widgets

import (
	"slices"
	"testing"
)

func TestScroll(t *testing.T) {
	lines := []string{"a", "b", "c", "d", "e", "f", "g"}
	var s Scroll
	s.SetHeight(3)
	// Unknown content: it scrolls without a bound and View shows the last page.
	s.Move(100)
	if got := s.Visible(lines); !slices.Equal(got, lines[4:]) {
		t.Errorf("unbounded: %q, want the last page", got)
	}
	if s.Offset() != 100 {
		t.Errorf("Visible changed the offset: %d", s.Offset())
	}
	s.SetLines(len(lines))
	if s.Offset() != 4 {
		t.Errorf("SetLines clamped to %d, want 4", s.Offset())
	}
	s.Move(-1)
	if got := s.Visible(lines); s.Offset() != 3 || !slices.Equal(got, lines[3:]) {
		t.Errorf("up one: offset %d, %q", s.Offset(), got)
	}
	s.Move(-10)
	if s.Offset() != 0 {
		t.Errorf("above the top: %d", s.Offset())
	}
	s.Move(2)
	s.SetHeight(10) // everything fits
	if s.Offset() != 0 {
		t.Errorf("a page taller than the content: offset %d", s.Offset())
	}
	s.SetHeight(3)
	s.Move(2)
	s.Top()
	if s.Offset() != 0 || s.Height() != 3 {
		t.Errorf("Top: offset %d height %d", s.Offset(), s.Height())
	}
}
