package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"math"

	"github.com/prism-eval/prism/model"
)

// A dataset's layout (layoutContext) is also kept packed in one BLOB,
// datasets.layout (schema 11), written with the dataset: reading it is
// one row, where the tables are a row a candidate through database/sql
// (for 16,000 candidates 40 ms of the 60 of prism score on an answered
// workspace before the decode of its answers; docs/performance.md
// "Reading a dataset"). Format 1: the format byte; the count of contexts; per
// context its id and the count of its candidates; per candidate its id
// and a byte: 0 for no human target, 1 followed by the target's 8
// IEEE-754 bytes, little endian. Counts and lengths are uvarints.

const (
	layoutFormat = 1
	// layoutVersion is the first schema version with datasets.layout.
	layoutVersion = 11
)

// encodeLayout packs a layout.
func encodeLayout(layout []layoutContext) []byte {
	b := []byte{layoutFormat}
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(layout)))
	for _, c := range layout {
		str(c.id)
		b = binary.AppendUvarint(b, uint64(len(c.candidates)))
		for _, k := range c.candidates {
			str(k.id)
			if !k.human.Valid {
				b = append(b, 0)
				continue
			}
			b = append(b, 1)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(k.human.Float64))
		}
	}
	return b
}

// layoutOfModel is the layout of a dataset as PutDataset stores it: its
// targets as the tables read them back (NULL for NaN, +0 for −0: SQLite
// keeps a REAL −0 as 0).
func layoutOfModel(d *model.Dataset) []layoutContext {
	out := layoutOfDataset(d)
	for i := range out {
		for j := range out[i].candidates {
			h := &out[i].candidates[j].human
			if h.Valid && h.Float64 == 0 {
				h.Float64 = 0
			}
		}
	}
	return out
}

// decodeLayout unpacks a layout; false when body is not one. Its ids
// share one string of body's bytes.
func decodeLayout(body []byte) ([]layoutContext, bool) {
	r := &snapshotReader{b: body}
	if r.byte() != layoutFormat {
		return nil, false
	}
	all := string(r.b) // ids are substrings of one copy of the bytes
	id := func() string {
		n := r.uvarint(uint64(len(r.b)))
		if r.err != nil || n > uint64(len(r.b)) {
			r.err = errSnapshot
			return ""
		}
		at := len(all) - len(r.b)
		r.b = r.b[n:]
		return all[at : at+int(n)]
	}
	// Each entry takes at least one byte, which bounds every count.
	out := make([]layoutContext, r.uvarint(uint64(len(r.b))))
	for i := range out {
		c := &out[i]
		c.id = id()
		if n := r.uvarint(uint64(len(r.b))); n > 0 { // nil when none, as the tables give
			c.candidates = make([]layoutCandidate, n)
		}
		for j := range c.candidates {
			k := &c.candidates[j]
			k.id = id()
			switch r.byte() {
			case 0:
			case 1:
				if len(r.b) < 8 {
					return nil, false
				}
				h := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
				if math.IsNaN(h) || math.IsInf(h, 0) {
					return nil, false // a target is a finite number (checkDataset)
				}
				k.human = sql.NullFloat64{Float64: h, Valid: true}
				r.b = r.b[8:]
			default:
				return nil, false
			}
		}
		if r.err != nil {
			return nil, false
		}
	}
	return out, r.err == nil && len(r.b) == 0
}

// storedLayout reads the packed layout of dataset (its row id); ok is
// false when there is none (an older workspace, or one that does not
// decode): the caller then reads the tables.
func storedLayout(ctx context.Context, q querier, dataset int64) (layout []layoutContext, ok bool, err error) {
	var body []byte
	err = q.QueryRowContext(ctx, "SELECT layout FROM datasets WHERE id = ?", dataset).Scan(&body)
	if err != nil || body == nil {
		return nil, false, err
	}
	layout, ok = decodeLayout(body)
	return layout, ok, nil
}

// writeLayout packs layout into the row of dataset (its row id).
func writeLayout(ctx context.Context, tx *sql.Tx, dataset int64, layout []layoutContext) error {
	_, err := tx.ExecContext(ctx, "UPDATE datasets SET layout = ? WHERE id = ?", encodeLayout(layout), dataset)
	return err
}

// fillLayouts writes the layout of every dataset stored before schema
// 11 (the migration's Go step), read from the tables.
func fillLayouts(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT id FROM datasets WHERE layout IS NULL ORDER BY id")
	if err != nil {
		return err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range ids {
		layout, err := tableLayout(ctx, tx, id)
		if err == nil {
			err = writeLayout(ctx, tx, id, layout)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
