package engine

import (
	"fmt"
	"io"
)

// splitWriter writes batch lines into parts of at most maxLines lines and
// maxBytes bytes (≤ 0: no cap), opening part k+1 (open(0), open(1), …)
// when the next line would pass a cap of part k. A line longer than
// maxBytes alone is an error: no part can hold it. A part whose writer
// has a Flush method (bufio.Writer) is flushed when it is done, so every
// part is written before the workspace records the export.
type splitWriter struct {
	open     func(part int) (io.Writer, error)
	maxLines int
	maxBytes int64

	w     io.Writer
	lines int   // in the current part
	bytes int64 // in the current part
	total int
	parts []int // lines of each part opened
}

func (s *splitWriter) write(line []byte) error {
	n := int64(len(line))
	if s.maxBytes > 0 && n > s.maxBytes {
		return fmt.Errorf("engine: a batch line of %d bytes is larger than a file may be (%d bytes)", n, s.maxBytes)
	}
	full := s.w != nil && (s.maxLines > 0 && s.lines+1 > s.maxLines || s.maxBytes > 0 && s.bytes+n > s.maxBytes)
	if s.w == nil || full {
		if err := s.flush(); err != nil {
			return err
		}
		w, err := s.open(len(s.parts))
		if err != nil {
			return err
		}
		s.w, s.lines, s.bytes = w, 0, 0
		s.parts = append(s.parts, 0)
	}
	if _, err := s.w.Write(line); err != nil {
		return err
	}
	s.lines++
	s.bytes += n
	s.total++
	s.parts[len(s.parts)-1]++
	return nil
}

// close opens the first part when nothing was written, so an empty export
// still writes its (empty) file.
func (s *splitWriter) close() error {
	if s.w != nil {
		return s.flush()
	}
	_, err := s.open(0)
	if err == nil {
		s.parts = []int{0}
	}
	return err
}

func (s *splitWriter) flush() error {
	if f, ok := s.w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}
