package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// parquetRows reads a Parquet file's rows, each as the JSON object of its
// columns (nested groups as objects, lists as arrays), calling fn with
// the row's 0-based index. The file is read by parquet-go; a panic in it
// on a corrupt file is reported as that file's error.
func parquetRows(name string, data []byte, fn func(i int, row []byte) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &ParseError{File: name, Msg: fmt.Sprintf("not a readable Parquet file (%v)", p)}
		}
	}()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return &ParseError{File: name, Msg: fmt.Sprintf("not a readable Parquet file: %v", err)}
	}
	r := parquet.NewReader(f)
	defer r.Close()
	buf := make([]parquet.Row, 64)
	for i := 0; ; {
		n, rerr := r.ReadRows(buf)
		for _, row := range buf[:n] {
			var v any
			if err := f.Schema().Reconstruct(&v, row); err != nil {
				return &ParseError{File: name, Msg: fmt.Sprintf("row %d: %v", i+1, err)}
			}
			js, err := json.Marshal(v)
			if err != nil {
				return &ParseError{File: name, Msg: fmt.Sprintf("row %d: %v", i+1, err)}
			}
			if err := fn(i, js); err != nil {
				return err
			}
			i++
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return &ParseError{File: name, Msg: fmt.Sprintf("row %d: %v", i+1, rerr)}
		}
	}
}

// eachParquetRecord reads a Parquet file's rows as mapped records; errors
// name the file, the 1-based row and the field.
func eachParquetRecord(name string, data []byte, add func(mappedRecord, string) error) error {
	return parquetRows(name, data, func(i int, js []byte) error {
		where := fmt.Sprintf("%s: row %d", name, i+1)
		loc := newLocator(where, js)
		n, err := parseJSON(loc, 0, len(js))
		if err != nil {
			return err
		}
		fail := func(_ *jnode, field, format string, args ...any) error {
			return &ParseError{File: where, Field: field, Msg: fmt.Sprintf(format, args...)}
		}
		return add(mappedRecord{node: n, loc: loc, fail: fail}, where)
	})
}
