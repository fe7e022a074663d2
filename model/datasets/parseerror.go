package datasets

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/model"
)

// ParseError reports malformed input: the file, the 1-based line (and
// column when known) and the field the problem is in.
type ParseError struct {
	File   string // file name as given to Load or Read
	Line   int    // 1-based; 0 when the problem is not tied to a line
	Column int    // 1-based byte column; 0 when unknown
	Field  string // dotted path of the field ("M11.scores.coherence"), or ""
	Msg    string
}

// Error formats the error as "file:line:col: field: msg", leaving out the
// parts that are unknown.
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		// One shape everywhere, file:line:col; column 1 stands for the
		// line as a whole when the parser gives none.
		fmt.Fprintf(&b, ":%d:%d", e.Line, max(1, e.Column))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(shortField(e.Field))
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// locator maps byte offsets of one input to line:column positions.
type locator struct {
	name       string
	data       []byte
	lineStarts []int // offset of the first byte of each line
}

func newLocator(name string, data []byte) *locator {
	starts := make([]int, 1, bytes.Count(data, []byte{'\n'})+1)
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &locator{name: name, data: data, lineStarts: starts}
}

// pos returns the 1-based line and byte column of offset off.
func (l *locator) pos(off int64) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(l.data)) {
		off = int64(len(l.data))
	}
	i := sort.Search(len(l.lineStarts), func(i int) bool { return int64(l.lineStarts[i]) > off }) - 1
	return i + 1, int(off) - l.lineStarts[i] + 1
}

// errAt builds a ParseError at byte offset off.
func (l *locator) errAt(off int64, field, format string, args ...any) *ParseError {
	line, col := l.pos(off)
	return &ParseError{File: l.name, Line: line, Column: col, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// errLine builds a ParseError on a whole line: at its first column, where
// the line's record starts.
func (l *locator) errLine(line int, field, format string, args ...any) *ParseError {
	return &ParseError{File: l.name, Line: line, Column: 1, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// joinPath joins a dotted field path, skipping empty parts.
func joinPath(parts ...string) string {
	var nonEmpty []string
	for _, p := range parts {
		if p != "" {
			nonEmpty = append(nonEmpty, p)
		}
	}
	return strings.Join(nonEmpty, ".")
}

func itoa(i int) string { return strconv.Itoa(i) }

// finite reports whether f is neither NaN nor infinite: averaging finite
// scores near the float64 limit can overflow.
func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// shortField is a field path as it is, or quoted and cut (model.Quote)
// when it is longer than a few field names: a field named by a header
// cell can be megabytes long.
func shortField(f string) string {
	if len(f) <= 4*model.MaxQuoted {
		return f
	}
	return model.Quote(f)
}

// headerList lists a header's columns for an error, each long one cut
// (model.Quote) and at most 32 of them.
func headerList(h []string) string {
	const most = 32
	parts := make([]string, 0, min(len(h), most+1))
	for i, c := range h {
		if i == most {
			parts = append(parts, fmt.Sprintf("… (%d columns)", len(h)))
			break
		}
		parts = append(parts, shortField(c))
	}
	return strings.Join(parts, ",")
}
