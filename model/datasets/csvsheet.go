package datasets

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"

	"github.com/prism-eval/prism/model"
)

// csvSheet reads a CSV file with a header row, reporting positions as
// file:line:column.
type csvSheet struct {
	name   string
	r      *csv.Reader
	header []string // column names as written, BOM and surrounding blanks removed
}

func newCSVSheet(loc *locator) (*csvSheet, error) {
	data := bytes.TrimPrefix(loc.data, []byte("\xef\xbb\xbf"))
	t := &csvSheet{name: loc.name, r: csv.NewReader(bytes.NewReader(data))}
	head, err := t.r.Read()
	if err == io.EOF {
		return nil, &ParseError{File: loc.name, Msg: "empty file (want a header row)"}
	}
	if err != nil {
		return nil, t.wrap(err)
	}
	seen := map[string]int{}
	for i, h := range head {
		h = strings.TrimSpace(h)
		t.header = append(t.header, h)
		if h == "" {
			continue
		}
		k := strings.ToLower(h)
		if j, dup := seen[k]; dup {
			return nil, t.errAt(i, h, "column appears twice (also column %d)", j+1)
		}
		seen[k] = i
	}
	return t, nil
}

// next returns the next record, or io.EOF. Each field (a text, an id, a
// score) is at most MaxText bytes.
func (t *csvSheet) next() ([]string, error) {
	rec, err := t.r.Read()
	if err != nil && err != io.EOF {
		return nil, t.wrap(err)
	}
	for i, f := range rec {
		if len(f) > model.MaxText {
			line, _ := t.r.FieldPos(i)
			field := ""
			if i < len(t.header) {
				field = t.header[i]
			}
			return nil, &model.SizeError{File: t.name, Line: line, Field: field, Limit: model.MaxText, What: "one text"}
		}
	}
	return rec, err
}

// each calls fn with every record after the header, in order; an error
// reading one, or from fn, ends it.
func (t *csvSheet) each(fn func(rec []string) error) error {
	for {
		rec, err := t.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

// line is the line the last record read starts on.
func (t *csvSheet) line() int {
	l, _ := t.r.FieldPos(0)
	return l
}

// errAt reports an error at column col of the last record read (or of the
// header, before any record).
func (t *csvSheet) errAt(col int, field, format string, args ...any) *ParseError {
	line, c := t.r.FieldPos(col)
	e := &ParseError{File: t.name, Line: line, Column: c, Field: field}
	e.Msg = sprintf(format, args...)
	return e
}

// column returns the index of the first column whose lower-cased name is
// one of names, or -1.
func (t *csvSheet) column(names ...string) int {
	for i, h := range t.header {
		for _, n := range names {
			if strings.EqualFold(h, n) {
				return i
			}
		}
	}
	return -1
}

func (t *csvSheet) wrap(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{File: t.name, Line: pe.Line, Column: pe.Column, Msg: pe.Err.Error()}
	}
	return &ParseError{File: t.name, Msg: err.Error()}
}
