package widgets

// Scroll is the offset of a pane that shows lines[Offset():] of content
// it rebuilds from state and width at every frame (see Block). Its state
// changes only through its methods, called from Update: Move and Top on
// keys, SetHeight on a resize, SetLines when the content changes; View
// only reads (Visible), so drawing a frame never moves it.
//
// The offset stays within [0, max(lines-height, 0)]. A pane that does not
// know its line count in Update yet (SetLines never called) scrolls down
// without a bound, and Visible shows the last page: the panes' behaviour
// before Scroll, less the write-back from View.
type Scroll struct {
	offset, height int
	lines          int
	known          bool
}

// SetHeight sets the number of lines shown.
func (s *Scroll) SetHeight(h int) {
	s.height = max(h, 0)
	s.clamp()
}

// SetLines sets the number of lines of the content.
func (s *Scroll) SetLines(n int) {
	s.lines, s.known = max(n, 0), true
	s.clamp()
}

// Move scrolls by delta lines (negative: up).
func (s *Scroll) Move(delta int) {
	s.offset += delta
	s.clamp()
}

// Top scrolls back to the first line.
func (s *Scroll) Top() { s.offset = 0 }

// Offset is the first line shown.
func (s Scroll) Offset() int { return s.offset }

// Height is the number of lines shown.
func (s Scroll) Height() int { return s.height }

// Visible is the lines from the offset, which it clamps to the last page
// of lines without changing the Scroll.
func (s Scroll) Visible(lines []string) []string {
	return lines[min(s.offset, max(len(lines)-s.height, 0)):]
}

func (s *Scroll) clamp() {
	if s.known {
		s.offset = min(s.offset, max(s.lines-s.height, 0))
	}
	s.offset = max(s.offset, 0)
}
