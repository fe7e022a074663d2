package model

import "fmt"

// MaxTOMLDepth bounds how deep a TOML file (a bank, a judge config, a price
// table) may nest: tables, inline tables, arrays and dotted-key segments
// together. The TOML parser's time and memory grow with the square of the
// depth (8,000 nested inline tables in 32 KB took seconds and gigabytes);
// prism's own files nest at most 6 deep.
const MaxTOMLDepth = 32

// CheckTOMLDepth scans TOML text, skipping strings and comments, and fails
// with file:line:col at the first point nested deeper than MaxTOMLDepth. It
// is a bound, not a parser: malformed text it lets through is left to the
// parser's error.
func CheckTOMLDepth(data []byte, file string) error {
	s := depthScan{data: data, line: 1, lineStart: 0, inKey: true, dots: []int{0}}
	for s.i < len(data) {
		if err := s.step(); err != nil {
			return &DepthError{File: file, Line: s.line, Column: s.i - s.lineStart + 1}
		}
	}
	return nil
}

// DepthError reports a TOML file nested deeper than MaxTOMLDepth, at the
// first byte past the limit.
type DepthError struct {
	File         string
	Line, Column int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg())
}

// Msg is the error without its location.
func (e *DepthError) Msg() string {
	return fmt.Sprintf("nested deeper than %d levels (tables, arrays and dotted keys together)", MaxTOMLDepth)
}

type depthScan struct {
	data            []byte
	i               int
	line, lineStart int
	stack           []byte // open '[' and '{'
	dots            []int  // dotted-key segments of the key being read, per open level
	inKey           bool   // reading a key (not a value)
}

var errTooDeep = fmt.Errorf("too deep")

// step consumes one token: a string, a comment or one byte.
func (s *depthScan) step() error {
	c := s.data[s.i]
	switch c {
	case '#':
		for s.i < len(s.data) && s.data[s.i] != '\n' {
			s.i++
		}
		return nil
	case '"', '\'':
		s.skipString(c)
		return nil
	case '\n':
		s.line, s.lineStart = s.line+1, s.i+1
		if len(s.stack) == 0 {
			s.inKey, s.dots[0] = true, 0
		}
	case '[', '{':
		s.stack = append(s.stack, c)
		s.dots = append(s.dots, 0)
		// '{' opens keys; '[' opens values, except a table header's.
		s.inKey = c == '{' || (len(s.stack) <= 2 && s.inKey && s.stack[0] == '[')
		if s.depth() > MaxTOMLDepth {
			return errTooDeep
		}
	case ']', '}':
		if len(s.stack) > 0 {
			s.stack, s.dots = s.stack[:len(s.stack)-1], s.dots[:len(s.dots)-1]
		}
		s.inKey = false
	case ',':
		if n := len(s.stack); n > 0 && s.stack[n-1] == '{' {
			s.inKey, s.dots[len(s.dots)-1] = true, 0
		}
	case '=':
		s.inKey = false
	case '.':
		if s.inKey {
			s.dots[len(s.dots)-1]++
			if s.depth() > MaxTOMLDepth {
				return errTooDeep
			}
		}
	}
	s.i++
	return nil
}

func (s *depthScan) depth() int {
	d := len(s.stack)
	for _, n := range s.dots {
		d += n
	}
	return d
}

// skipString moves past the basic or literal string (one-line or
// triple-quoted) starting at s.i; a one-line string also ends at a newline
// (the parser reports it).
func (s *depthScan) skipString(q byte) {
	multi := s.i+2 < len(s.data) && s.data[s.i+1] == q && s.data[s.i+2] == q
	if multi {
		s.i += 3
	} else {
		s.i++
	}
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '\\' && q == '"':
			s.i++ // the escaped byte (a newline in a line-ending backslash)
			if s.i < len(s.data) && s.data[s.i] == '\n' {
				s.line, s.lineStart = s.line+1, s.i+1
			}
		case c == '\n':
			if !multi {
				return
			}
			s.line, s.lineStart = s.line+1, s.i+1
		case c == q && !multi:
			s.i++
			return
		case c == q && s.i+2 < len(s.data) && s.data[s.i+1] == q && s.data[s.i+2] == q:
			s.i += 3
			for s.i < len(s.data) && s.data[s.i] == q { // """"" ends with quotes inside
				s.i++
			}
			return
		}
		s.i++
	}
}
