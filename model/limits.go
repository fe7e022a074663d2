package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Input size limits (docs/datasets.md, "Size limits"). Every reader of a
// user-supplied file reads through one of them, so that a wrong file
// (/dev/zero, a disk image, one runaway text) fails with an error naming
// it instead of exhausting memory.
const (
	// MaxDatasetFile bounds one dataset file (or, for a judgebench
	// directory, all its files together); the file is held in memory
	// while it is parsed.
	MaxDatasetFile = 1 << 30 // 1 GiB
	// MaxText bounds one string of a dataset: a source, a candidate text,
	// an id or any other field. Judges take far less; a longer text is
	// almost surely a broken export.
	MaxText = 1 << 20 // 1 MiB
	// MaxJSONLine bounds one line of a JSON Lines dataset: room for a
	// source, a candidate or two and their metadata at MaxText each.
	MaxJSONLine = 8 << 20 // 8 MiB
	// MaxTableFile bounds a score, label or order file (prism fit, select,
	// import scores) and MaxTableLine one line of it; these files hold
	// ids and numbers, never texts.
	MaxTableFile = 1 << 30 // 1 GiB
	MaxTableLine = 1 << 20 // 1 MiB
)

// SizeError reports an input larger than its limit. What names the kind of
// input ("a dataset file", "one text"); Line and Field are set when known.
type SizeError struct {
	File  string
	Line  int
	Field string
	Limit int64
	What  string
}

func (e *SizeError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d:1", e.Line) // file:line:col, the line as a whole
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	return fmt.Sprintf("%s: larger than the %s limit for %s", s, SizeText(e.Limit), e.What)
}

// SizeText renders a limit in binary units (1 MiB, 1 GiB).
func SizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadLimited reads all of r, or fails with a SizeError once it has seen
// more than limit bytes: it never holds more than limit+1 bytes of r.
func ReadLimited(r io.Reader, limit int64, name, what string) ([]byte, error) {
	var data []byte
	var err error
	if l, ok := r.(interface{ Len() int }); ok && int64(l.Len()) <= limit {
		data, err = readAll(r) // in memory already: one allocation
	} else {
		data, err = io.ReadAll(io.LimitReader(r, limit+1))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, &SizeError{File: name, Limit: limit, What: what}
	}
	return data, nil
}

// OpenInput opens path for reading after checking that it is a file no
// larger than limit. Devices (/dev/zero, /dev/urandom), sockets and
// directories are refused up front; a pipe (a FIFO, the /dev/fd/N of a
// shell's <(…)) has no size to check and is bounded by the reader's limit.
func OpenInput(path string, limit int64, what string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	switch m := st.Mode(); {
	case m.IsDir():
		return nil, fmt.Errorf("%s: is a directory, want %s", path, what)
	case m&(os.ModeDevice|os.ModeCharDevice|os.ModeSocket|os.ModeIrregular) != 0:
		return nil, fmt.Errorf("%s: is a device or socket, not a file; want %s", path, what)
	case m.IsRegular() && st.Size() > limit:
		return nil, &SizeError{File: path, Limit: limit, What: what}
	}
	return os.Open(path)
}

// ReadFileLimited is os.ReadFile for a file of at most limit bytes (see
// OpenInput); the read itself is bounded too, for pipes and files that grow.
func ReadFileLimited(path string, limit int64, what string) ([]byte, error) {
	f, err := OpenInput(path, limit, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	// One allocation of the file's size; the LimitReader still stops a
	// file that grew since the Stat.
	data, err := readSized(io.LimitReader(f, limit+1), min(size, limit))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, &SizeError{File: path, Limit: limit, What: what}
	}
	return data, nil
}

// LimitLines wraps r so that a line longer than max bytes (counted from
// the last '\n') or more than total bytes in all fail the read with a
// SizeError naming the line. encoding/csv and bufio buffer a whole record or
// line before returning it, so a file without newlines would otherwise be
// buffered whole.
func LimitLines(r io.Reader, name string, max, total int64, what string) io.Reader {
	return &lineLimiter{r: r, name: name, max: max, total: total, what: what, line: 1}
}

type lineLimiter struct {
	r          io.Reader
	name, what string
	max, total int64
	n, cur     int64 // bytes read in all and in the current line
	line       int
	err        error
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	// A line's bytes up to its newline are counted at once when they
	// break no limit (bytes.IndexByte, not a step a byte: it was a sixth
	// of reading a score file); a line that might is stepped through
	// byte by byte, to fail at the byte that breaks it.
	for i := 0; i < n; {
		end := n
		if j := bytes.IndexByte(p[i:n], '\n'); j >= 0 {
			end = i + j
		}
		if run := int64(end - i); l.n+run > l.total || l.cur+run > l.max {
			for ; i < end; i++ { // a byte of the run breaks a limit
				if l.step(p[i]) {
					return i, l.err
				}
			}
		}
		l.n += int64(end - i)
		l.cur += int64(end - i)
		if i = end; i < n {
			if l.step(p[i]) { // the newline
				return i, l.err
			}
			i++
		}
	}
	return n, err
}

// step counts byte b and reports whether it breaks a limit (l.err).
func (l *lineLimiter) step(b byte) bool {
	l.n++
	if b == '\n' {
		l.line++
		l.cur = 0
	} else {
		l.cur++
	}
	switch {
	case l.n > l.total:
		l.err = &SizeError{File: l.name, Limit: l.total, What: l.what}
	case l.cur > l.max:
		l.err = &SizeError{File: l.name, Line: l.line, Limit: l.max, What: "one line of " + l.what}
	}
	return l.err != nil
}

// IsSizeError reports whether err is or wraps a SizeError.
func IsSizeError(err error) bool {
	var se *SizeError
	return errors.As(err, &se)
}

// readAll is io.ReadAll that sizes its buffer once when r knows its
// length (bytes.Reader, strings.Reader).
func readAll(r io.Reader) ([]byte, error) {
	l, ok := r.(interface{ Len() int })
	if !ok {
		return io.ReadAll(r)
	}
	return readSized(r, int64(l.Len()))
}

// readSized reads all of r into a buffer sized for n bytes, growing it
// only if r holds more.
func readSized(r io.Reader, n int64) ([]byte, error) {
	b := make([]byte, 0, n+1) // +1: room to see io.EOF without growing
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}
