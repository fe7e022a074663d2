package datasets

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/model"
)

// The mapped formats read any file of records (JSON Lines, a JSON array,
// a CSV with a header, a Parquet file) whose fields are named by paths:
// dotted keys into each record with array indices as numbers
// ("judgments.0.judgment.scores.1", or "judgments[0].judgment.scores[1]").
// A path that is a whole key of the record ("scores.coherence" as a CSV
// column) is that key. For ids, "=TEXT" is the text itself and several
// paths joined by commas ("question_id,turn") form one id, their values
// joined by "/".

// mappedRecord is one record as a JSON tree, with how to name a field of
// it in an error.
type mappedRecord struct {
	node *jnode
	loc  *locator // nil for CSV, whose cells are strings
	fail func(n *jnode, field, format string, args ...any) error
}

// eachRecord calls add with each record of a mapped file of format
// (jsonl, json, csv or parquet; anything else is an error naming it).
func eachRecord(format, name string, data []byte, add func(mappedRecord, string) error) error {
	switch format {
	case LogJSONL:
		return eachJSONL(newLocator(name, data), add)
	case LogJSON:
		return eachJSONRecord(newLocator(name, data), add)
	case LogCSV:
		return eachCSVRecord(name, data, add)
	case LogParquet:
		return eachParquetRecord(name, data, add)
	}
	return fmt.Errorf("%s: format %s: want jsonl, json, csv or parquet", name, format)
}

// eachJSONLOrParquet calls add with each record of a file published as
// JSON Lines or as Parquet (told apart by Parquet's magic bytes).
func eachJSONLOrParquet(loc *locator, add func(mappedRecord, string) error) error {
	if bytes.HasPrefix(loc.data, []byte("PAR1")) {
		return eachParquetRecord(loc.name, loc.data, add)
	}
	return eachJSONL(loc, add)
}

// readMapped reads a mapped file (format jsonl, json, csv or parquet).
func readMapped(format, name string, data []byte, opts LogOptions) (*ScoreLog, error) {
	if opts.Context == "" || opts.Candidate == "" || opts.Score == "" {
		return nil, fmt.Errorf("%s: format %s needs --context, --candidate and --score paths", name, format)
	}
	b := newLogBuilder(baseName(name), format)
	add := func(r mappedRecord, where string) error {
		lr, err := mappedRow(r, where, opts)
		if err != nil {
			return err
		}
		return b.add(lr)
	}
	err := eachRecord(format, name, data, add)
	if err != nil {
		return nil, err
	}
	return b.finish(name)
}

func jsonFail(loc *locator) func(n *jnode, field, format string, args ...any) error {
	return func(n *jnode, field, format string, args ...any) error {
		return loc.errAt(n.off, field, format, args...)
	}
}

func eachJSONL(loc *locator, add func(mappedRecord, string) error) error {
	var err error
	for li, obj := range jsonlObjects(loc, &err) {
		if e := add(mappedRecord{node: obj, loc: loc, fail: jsonFail(loc)}, sprintf("%s:%d", loc.name, li+1)); e != nil {
			return e
		}
	}
	return err
}

// eachJSONRecord reads a JSON array of records, or {"data": [...]}.
func eachJSONRecord(loc *locator, add func(mappedRecord, string) error) error {
	top, err := parseJSON(loc, bomLen(loc.data), len(loc.data))
	if err != nil {
		return err
	}
	list, path := top, ""
	if top.kind == jObject && top.get("data") != nil {
		list, path = top.get("data"), "data"
	}
	if list.kind != jArray {
		return loc.errAt(list.off, path, "want an array of records (or {\"data\": [...]}), got %s", list.kind)
	}
	for i, n := range list.items {
		p := joinPath(path, itoa(i))
		if err := loc.wantKind(n, p, jObject); err != nil {
			return err
		}
		line, _ := loc.pos(n.off)
		fail := func(v *jnode, field, format string, args ...any) error {
			return loc.errAt(v.off, joinPath(p, field), format, args...)
		}
		if err := add(mappedRecord{node: n, loc: loc, fail: fail}, sprintf("%s:%d: %s", loc.name, line, p)); err != nil {
			return err
		}
	}
	return nil
}

// eachCSVRecord reads a CSV with a header: each row an object of its
// cells by column name (an empty cell null).
func eachCSVRecord(name string, data []byte, add func(mappedRecord, string) error) error {
	cr := csv.NewReader(model.LimitLines(bytes.NewReader(data[bomLen(data):]), name, model.MaxJSONLine, model.MaxDatasetFile, "a CSV file"))
	head, err := cr.Read()
	if err == io.EOF {
		return fmt.Errorf("%s: empty file, want a header", name)
	}
	if err != nil {
		return csvFileErr(name, err)
	}
	head = append([]string(nil), head...)
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return csvFileErr(name, err)
		}
		obj := &jnode{kind: jObject}
		for i, h := range head {
			v := &jnode{kind: jNull}
			if rec[i] != "" {
				v = &jnode{kind: jString, text: rec[i]}
			}
			if len(rec[i]) > model.MaxText {
				line, _ := cr.FieldPos(i)
				return &model.SizeError{File: name, Line: line, Field: h, Limit: model.MaxText, What: "one text"}
			}
			obj.keys, obj.vals = append(obj.keys, h), append(obj.vals, v)
		}
		line, _ := cr.FieldPos(0)
		fail := func(_ *jnode, field, format string, args ...any) error {
			c := 1
			if i, ok := col[field]; ok {
				_, c = cr.FieldPos(i)
			}
			return &ParseError{File: name, Line: line, Column: c, Field: field, Msg: sprintf(format, args...)}
		}
		if err := add(mappedRecord{node: obj, fail: fail}, sprintf("%s:%d", name, line)); err != nil {
			return err
		}
	}
}

func csvFileErr(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{File: name, Line: pe.Line, Column: pe.Column, Msg: pe.Err.Error()}
	}
	if model.IsSizeError(err) {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// lookup follows a path into a record: the whole path as a key first,
// then its dotted segments (array items by index).
func lookup(n *jnode, path string) *jnode {
	if v := n.get(path); v != nil {
		return v
	}
	path = strings.NewReplacer("[", ".", "]", "").Replace(path)
	for _, seg := range strings.Split(path, ".") {
		switch {
		case n == nil:
			return nil
		case n.kind == jObject:
			n = n.get(seg)
		case n.kind == jArray:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(n.items) {
				return nil
			}
			n = n.items[i]
		default:
			return nil
		}
	}
	return n
}

// mappedID reads an id: "=TEXT", or paths joined by commas.
func mappedID(r mappedRecord, spec, flag string) (string, error) {
	if lit, ok := strings.CutPrefix(spec, "="); ok {
		return lit, nil
	}
	var parts []string
	for _, p := range strings.Split(spec, ",") {
		v := lookup(r.node, p)
		if v == nil || v.kind == jNull || (v.kind == jString && v.text == "") {
			return "", r.fail(r.node, p, "missing (%s %s)", flag, spec)
		}
		switch v.kind {
		case jString, jNumber, jBool:
			parts = append(parts, v.text)
		default:
			return "", r.fail(v, p, "want a string or number for %s, got %s", flag, v.kind)
		}
	}
	return strings.Join(parts, "/"), nil
}

// mappedNumber reads a score or label: a number or numeric string; null
// or an empty cell is missing.
func mappedNumber(r mappedRecord, path, what string) (float64, bool, error) {
	v := lookup(r.node, path)
	if v == nil {
		return 0, false, r.fail(r.node, path, "missing (the %s path)", what)
	}
	switch v.kind {
	case jNull:
		return 0, true, nil
	case jNumber, jString:
		f, err := model.ParseDecimal(strings.TrimSpace(v.text))
		if err == nil {
			err = model.CheckNumber(f)
		}
		if err != nil {
			return 0, false, r.fail(v, path, "%s %s is not a finite number (%v)", what, model.Quote(v.text), err)
		}
		return f, false, nil
	}
	return 0, false, r.fail(v, path, "want a number for the %s, got %s", what, v.kind)
}

// mappedRow reads one record's coordinates, score and label.
func mappedRow(r mappedRecord, where string, opts LogOptions) (logRecord, error) {
	lr := logRecord{where: where}
	var err error
	if lr.context, err = mappedID(r, opts.Context, "--context"); err != nil {
		return lr, err
	}
	if lr.candidate, err = mappedID(r, opts.Candidate, "--candidate"); err != nil {
		return lr, err
	}
	if opts.Run != "" {
		if lr.run, err = mappedID(r, opts.Run, "--run"); err != nil {
			return lr, err
		}
	}
	if lr.score, lr.missing, err = mappedNumber(r, opts.Score, "score"); err != nil {
		return lr, err
	}
	if opts.Label != "" {
		h, missing, err := mappedNumber(r, opts.Label, "label")
		if err != nil {
			return lr, err
		}
		if !missing {
			lr.label = &h
		}
	}
	return lr, nil
}
