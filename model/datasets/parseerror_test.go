package datasets

import "testing"

func TestLocatorPos(t *testing.T) {
	data := []byte("ab\ncd\n\nefg")
	loc := newLocator("f", data)
	for _, tc := range []struct {
		off       int64
		line, col int
	}{
		{0, 1, 1}, {1, 1, 2}, {2, 1, 3}, // the '\n' ends line 1
		{3, 2, 1}, {5, 2, 3},
		{6, 3, 1},
		{7, 4, 1}, {9, 4, 3},
		{10, 4, 4},  // end of input
		{-5, 1, 1},  // clamped
		{999, 4, 4}, // clamped
	} {
		line, col := loc.pos(tc.off)
		if line != tc.line || col != tc.col {
			t.Errorf("pos(%d) = %d:%d, want %d:%d", tc.off, line, col, tc.line, tc.col)
		}
	}
}

func TestParseErrorFormat(t *testing.T) {
	for _, tc := range []struct {
		e    ParseError
		want string
	}{
		{ParseError{File: "data.json", Line: 12, Column: 3, Field: "M11.scores.coherence", Msg: "not a number"}, "data.json:12:3: M11.scores.coherence: not a number"},
		{ParseError{File: "data.json", Line: 12, Msg: "bad"}, "data.json:12:1: bad"}, // no column: the line as a whole
		{ParseError{File: "x.csv", Msg: "no rows"}, "x.csv: no rows"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{{"abc", 5, "abc"}, {"abcdef", 3, "abc…"}, {"ééé", 2, "éé…"}, {"", 0, ""}} {
		if got := truncate(tc.s, tc.n); got != tc.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestByteOrderMark(t *testing.T) {
	d := readString(t, FormatJSONL, "bom.jsonl", "\ufeff"+`{"context": "c", "candidate": "a", "text": "t", "human": 1}`)
	if d.Contexts[0].ID != "c" {
		t.Errorf("context %q", d.Contexts[0].ID)
	}
	d = readString(t, FormatTopicalChat, "bom.json", "\ufeff"+topicalChatTiny)
	if len(d.Contexts) != 2 {
		t.Errorf("%d contexts", len(d.Contexts))
	}
}
