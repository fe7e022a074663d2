package model

import (
	"fmt"
	"io"
	"strings"
)

// ScanScoresCSV reads what ReadScoresCSV reads and passes each row to fn
// in file order, holding none: a caller that folds the rows as they come
// (calib.DesignBuilder) needs memory for its result only. An error from
// fn stops the scan and is returned.
//
// Rows share their strings: a context or candidate id equal to the
// previous row's is that string, and probes, runs and wordings are
// interned, so the rows of a file do not keep its lines alive.
//
// The CSV is split into records on a goroutine of its own (scanRecords)
// while this one checks them and calls fn: the two halves cost about the
// same, so a second core takes 27% off prism score of 100,000
// candidates (docs/performance.md). Errors are the sequential scan's:
// the first in file order, located at its field.
func ScanScoresCSV(r io.Reader, file string, fn func(ScoreRow) error) error {
	t, err := openCSV(r, file, "a score file", []string{"context", "candidate", "probe", "score"})
	if err != nil {
		return err
	}
	var cols [scoreFields]int
	for f, name := range scoreColumns {
		if i, ok := t.col[name]; ok {
			cols[f] = i
		} else {
			cols[f] = -1 // run and wording are optional
		}
	}
	batches, free, stop := make(chan *recordBatch, 2), make(chan *recordBatch, 3), make(chan struct{})
	for range cap(free) {
		free <- &recordBatch{}
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t.scanRecords(cols, batches, free, stop)
	}()
	// The reader stops at its next record: r is not read once this
	// returns.
	defer func() { close(stop); <-ended }()
	s := rowScanner{file: file, probes: internTable{}, labels: internTable{}, hasRun: cols[fieldRun] >= 0, hasWording: cols[fieldWording] >= 0}
	for b := range batches {
		for i := range b.recs {
			row, err := s.row(&b.recs[i])
			if err == nil {
				err = fn(row)
			}
			if err != nil {
				return err
			}
		}
		if b.err != nil {
			if b.err == io.EOF {
				return nil
			}
			return b.err
		}
		free <- b
	}
	return nil // not reached: the last batch carries io.EOF or an error
}

// The columns a score file's rows are made of, in scoreColumns' order.
const (
	fieldContext = iota
	fieldCandidate
	fieldProbe
	fieldScore
	fieldRun
	fieldWording
	scoreFields
)

var scoreColumns = [scoreFields]string{"context", "candidate", "probe", "score", "run", "wording"}

// record is one CSV record's fields of scoreColumns ("" for an absent
// column) and where each starts in the file, for errors.
type record struct {
	start int // the line the record starts on
	field [scoreFields]string
	line  [scoreFields]int
	col   [scoreFields]int
}

// recordBatch is a run of records; err, set on the last batch, is the
// read's end: io.EOF or the error at the record after recs.
type recordBatch struct {
	recs []record
	err  error
}

const batchRecords = 512

// scanRecords reads t's records into batches sent on out, reusing the
// batches it gets back on free, until the file ends, a read fails or
// stop is closed. It closes out.
func (t *csvTable) scanRecords(cols [scoreFields]int, out chan<- *recordBatch, free <-chan *recordBatch, stop <-chan struct{}) {
	defer close(out)
	for {
		var b *recordBatch
		select {
		case b = <-free:
		case <-stop:
			return
		}
		b.recs = b.recs[:0]
		for len(b.recs) < batchRecords && b.err == nil {
			select {
			case <-stop:
				return
			default:
			}
			rec, err := t.r.Read()
			if err != nil {
				b.err = err
				if err != io.EOF {
					b.err = csvErr(t.file, err)
				}
				break
			}
			b.recs = append(b.recs, record{})
			r := &b.recs[len(b.recs)-1]
			r.start, _ = t.r.FieldPos(0)
			for f, i := range cols {
				if i >= 0 {
					r.field[f] = rec[i]
					r.line[f], r.col[f] = t.r.FieldPos(i)
				}
			}
		}
		select {
		case out <- b:
		case <-stop:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// rowScanner turns records into rows, sharing strings between them.
type rowScanner struct {
	file               string
	last               [scoreFields]string // the previous row's ids, by field
	probes             internTable         // valid probe names
	labels             internTable         // runs and wordings
	hasRun, hasWording bool
}

func (s *rowScanner) row(r *record) (ScoreRow, error) {
	row := ScoreRow{Line: r.start}
	var err error
	if row.Context, err = s.id(r, fieldContext); err != nil {
		return row, err
	}
	if row.Candidate, err = s.id(r, fieldCandidate); err != nil {
		return row, err
	}
	p := strings.TrimSpace(r.field[fieldProbe])
	if row.Probe = s.probes.get(p); row.Probe == "" {
		if _, _, _, err := ParseProbe(p); err != nil {
			return row, fmt.Errorf("%s: field \"probe\": %v", s.at(r, fieldProbe), err)
		}
		row.Probe = s.probes.put(p)
	}
	if s.hasRun {
		row.Run = s.labels.intern(strings.TrimSpace(r.field[fieldRun]))
	}
	if s.hasWording {
		row.Wording = s.labels.intern(strings.TrimSpace(r.field[fieldWording]))
	}
	if v := strings.TrimSpace(r.field[fieldScore]); v == "" {
		row.Missing = true
	} else if n, err := ParseDecimal(v); err == nil && CheckNumber(n) == nil {
		row.Score = n
	} else if row.Score, err = parseNumber(s.at(r, fieldScore), "score", v); err != nil {
		return row, err // parseNumber reads what the fast ParseDecimal does not
	}
	return row, nil
}

// id is r's id in field f, the previous row's string when it is the
// same; an empty id is an error.
func (s *rowScanner) id(r *record, f int) (string, error) {
	switch v := strings.TrimSpace(r.field[f]); {
	case v == "":
		return "", fmt.Errorf("%s: field %q is empty", s.at(r, f), scoreColumns[f])
	case v == s.last[f]:
		return s.last[f], nil
	default:
		s.last[f] = strings.Clone(v)
		return s.last[f], nil
	}
}

// at is where field f of r starts, in the file:line:col form of every
// loader's errors.
func (s *rowScanner) at(r *record, f int) string {
	return fmt.Sprintf("%s:%d:%d", s.file, r.line[f], r.col[f])
}
