package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"strings"
)

// A score snapshot is one study's answers packed in a few BLOBs
// (score_snapshots, schema 5), written when a run ends (Lease.Release), so
// that Scores — prism fit and export — reads a few rows rather than a row
// per request. It is used only while the generation of each of its parts
// is the study's: every transaction that writes to the study bumps
// studies.generation (requestUpsert.finish), so a snapshot never outlives
// a change, and deleting a study deletes its snapshot. Scores falls back
// to reading the requests when there is no current snapshot or it does
// not decode.
//
// A snapshot is written in parts of at most snapshotPart answers, so that
// writing one holds a part, not the study, in memory. Part body, format 1:
// the format byte; the candidates first named in this part (uvarint
// count, then context and candidate ids, each uvarint length + bytes);
// the conditions first named in it (count, then probe, wording, run); its
// answers (count, then per answer the uvarint candidate and condition
// indices, numbered across the parts in order, and a byte: 0 for no
// parsed score, 1 followed by the score's 8 IEEE-754 bytes, little
// endian). The answers are in no particular order; Scores orders them.

const (
	snapshotFormat = 1
	// snapshotCollect is the size of a study's id range from which
	// SnapshotScores collects garbage before reading it.
	snapshotCollect = 1 << 18
)

// snapshotPart is the most answers of a part (tests make it smaller).
var snapshotPart = 1 << 16

var errSnapshot = errors.New("store: malformed score snapshot")

// snapshotWriter encodes a snapshot from a study's answered requests as
// they are read, a part at a time.
type snapshotWriter struct {
	pairOf       map[[2]string]uint64
	pairs        [][2]string
	condOf       map[[3]string]uint64
	conds        [][3]string
	pairsWritten int // pairs[:pairsWritten] were named by earlier parts
	condsWritten int
	recs         []byte
	n            int // answers in recs
	// flush is given each part's body when it is full; nil: parts are
	// kept in parts.
	flush func(body []byte) error
	parts [][]byte
}

func newSnapshotWriter(flush func(body []byte) error) *snapshotWriter {
	return &snapshotWriter{pairOf: map[[2]string]uint64{}, condOf: map[[3]string]uint64{}, flush: flush}
}

// add encodes one answered request: context, candidate, probe, wording,
// run and its answer column (answerText).
func (w *snapshotWriter) add(row *[6]string) error {
	score, ok, err := scoreOfAnswer(row[5])
	if err != nil {
		return err
	}
	pk := [2]string{row[0], row[1]}
	pair, known := w.pairOf[pk]
	if !known {
		pk = [2]string{strings.Clone(pk[0]), strings.Clone(pk[1])}
		pair = uint64(len(w.pairs))
		w.pairs = append(w.pairs, pk)
		w.pairOf[pk] = pair
	}
	ck := [3]string{row[2], row[3], row[4]}
	cond, known := w.condOf[ck]
	if !known {
		ck = [3]string{strings.Clone(ck[0]), strings.Clone(ck[1]), strings.Clone(ck[2])}
		cond = uint64(len(w.conds))
		w.conds = append(w.conds, ck)
		w.condOf[ck] = cond
	}
	w.recs = binary.AppendUvarint(w.recs, pair)
	w.recs = binary.AppendUvarint(w.recs, cond)
	if !ok {
		w.recs = append(w.recs, 0)
	} else {
		w.recs = append(w.recs, 1)
		w.recs = binary.LittleEndian.AppendUint64(w.recs, math.Float64bits(score))
	}
	w.n++
	if w.n == snapshotPart {
		return w.close()
	}
	return nil
}

// close ends the current part (if it holds anything) and hands it on.
func (w *snapshotWriter) close() error {
	if w.n == 0 {
		return nil
	}
	b := make([]byte, 0, 64+len(w.recs)+(len(w.pairs)-w.pairsWritten)*16)
	b = append(b, snapshotFormat)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(w.pairs)-w.pairsWritten))
	for _, p := range w.pairs[w.pairsWritten:] {
		str(p[0])
		str(p[1])
	}
	b = binary.AppendUvarint(b, uint64(len(w.conds)-w.condsWritten))
	for _, c := range w.conds[w.condsWritten:] {
		str(c[0])
		str(c[1])
		str(c[2])
	}
	b = binary.AppendUvarint(b, uint64(w.n))
	b = append(b, w.recs...)
	w.pairsWritten, w.condsWritten = len(w.pairs), len(w.conds)
	w.recs, w.n = w.recs[:0], 0
	if w.flush == nil {
		w.parts = append(w.parts, b)
		return nil
	}
	return w.flush(b)
}

// noPositions are the positions of a dataset without candidates: every
// row in the one bucket of unknown ids.
func noPositions() datasetPositions {
	return datasetPositions{isCand: []bool{false}, buckets: 1}
}

// uvarint is binary.Uvarint with the one- and two-byte values, a
// snapshot's indices, read inline.
func uvarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	if len(b) > 1 && b[1] < 0x80 {
		return uint64(b[0]&0x7f) | uint64(b[1])<<7, 2
	}
	return binary.Uvarint(b)
}

// snapshotReader reads a body, failing on the first byte out of place.
type snapshotReader struct {
	b   []byte
	err error
}

func (r *snapshotReader) uvarint(limit uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > limit {
		r.err = errSnapshot
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *snapshotReader) str() string {
	n := r.uvarint(math.MaxUint64)
	if r.err == nil && n > uint64(len(r.b)) {
		r.err = errSnapshot
	}
	if r.err != nil {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *snapshotReader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errSnapshot
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// snapshotDecoder adds a snapshot's answers to sr a part at a time, so
// that a reader holds one part, not the snapshot (at 608,000 answers its
// parts were 7.5 MB of a fit's peak). A part names the candidates and
// conditions it adds to those of the parts before it.
type snapshotDecoder struct {
	sr               *studyRows
	bank             string
	pairIdx, condIdx []int32 // snapshot index → sr's
}

// part adds the answers of the next part; on errSnapshot it may have
// added some of them (readSnapshot drops them).
func (d *snapshotDecoder) part(body []byte) error {
	sr := d.sr
	r := &snapshotReader{b: body}
	if r.byte() != snapshotFormat {
		return errSnapshot
	}
	// Each entry takes at least one byte, which bounds every count.
	for range r.uvarint(uint64(len(r.b))) {
		c, k := r.str(), r.str()
		if r.err != nil {
			break
		}
		d.pairIdx = append(d.pairIdx, sr.pair(c, k))
	}
	for range r.uvarint(uint64(len(r.b))) {
		p, w, run := r.str(), r.str(), r.str()
		if r.err != nil {
			break
		}
		d.condIdx = append(d.condIdx, sr.cond(p, w, run, d.bank))
	}
	n := r.uvarint(uint64(len(r.b)))
	if r.err == nil && n > 0 && (len(d.pairIdx) == 0 || len(d.condIdx) == 0) {
		r.err = errSnapshot
	}
	if r.err != nil {
		return errSnapshot
	}
	sr.recs.reserve(int(n))
	// The answers, a third of prism score on an answered workspace: read
	// in one loop over the bytes (two-byte indices inline), each record
	// built whole before it is added.
	b, np, nc := r.b, uint64(len(d.pairIdx)), uint64(len(d.condIdx))
	for range n {
		p, k := uvarint(b)
		if k <= 0 || p >= np {
			return errSnapshot
		}
		b = b[k:]
		c, k := uvarint(b)
		if k <= 0 || c >= nc || len(b) == k {
			return errSnapshot
		}
		rec := scoreRec{pair: d.pairIdx[p], cond: uint32(d.condIdx[c])}
		switch b[k] {
		case 0:
			rec.answer(0, true)
			b = b[k+1:]
		case 1:
			if len(b) < k+9 {
				return errSnapshot
			}
			score := math.Float64frombits(binary.LittleEndian.Uint64(b[k+1:]))
			if math.IsNaN(score) || math.IsInf(score, 0) {
				return errSnapshot
			}
			rec.answer(score, false)
			b = b[k+9:]
		default:
			return errSnapshot
		}
		sr.recs.add(rec)
	}
	r.b = b
	if r.err != nil || len(r.b) != 0 {
		return errSnapshot
	}
	return nil
}

// readSnapshots is false only in benchmarks of the read without them.
var readSnapshots = true

// readSnapshot adds the study's answers to sr from its current snapshot;
// false when there is none (or it does not decode), and sr is unchanged.
func readSnapshot(ctx context.Context, tx *sql.Tx, sr *studyRows, st studyRef) (bool, error) {
	if !readSnapshots {
		return false, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT part, generation, body FROM score_snapshots WHERE study_id = ? ORDER BY part`, st.id)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	// Each part is decoded as it is read, from the driver's bytes: only
	// a snapshot whose parts are all there, of the study's generation and
	// decodable, adds its answers.
	start := sr.recs.len()
	read := false
	defer func() {
		if !read {
			sr.recs.truncate(start) // what its parts added
		}
	}()
	d := snapshotDecoder{sr: sr, bank: st.bank}
	parts, ok := 0, true
	for ok && rows.Next() {
		var part, gen int64
		var body sql.RawBytes
		if err := rows.Scan(&part, &gen, &body); err != nil {
			return false, err
		}
		ok = gen == st.generation && part == int64(parts) && d.part(body) == nil
		parts++
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	read = ok && parts > 0
	return read, nil
}

// SnapshotScores writes the score snapshot of a study (judge on dataset
// under bankHash) unless its current one is there: what Lease.Release does
// when a run ends. A workspace older than schema 5 has none.
func (s *Store) SnapshotScores(ctx context.Context, dataset, judge, bankHash string) error {
	_, err := s.snapshotScores(ctx, dataset, judge, bankHash, nil)
	return err
}

// snapshotScores is SnapshotScores writing built, a run's own snapshot of
// the study (run_snapshot.go), instead of reading the study, when the
// study's generation is still built's: used says it did.
func (s *Store) snapshotScores(ctx context.Context, dataset, judge, bankHash string, built *builtSnapshot) (used bool, err error) {
	if !s.compact() {
		return false, nil
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		used = false
		studies, err := studiesOf(ctx, tx, judge, dataset, bankHash, false)
		if err != nil {
			return err
		}
		for _, st := range studies {
			if st.bank != bankHash {
				continue
			}
			var current bool
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM score_snapshots WHERE study_id = ? AND part = 0 AND generation = ?)`,
				st.id, st.generation).Scan(&current); err != nil || current {
				return err
			}
			if ok, err := built.release(ctx, tx, st); err != nil {
				return err
			} else if ok {
				used = true
				continue
			}
			if err := deleteSnapshot(ctx, tx, st.id); err != nil {
				return err
			}
			if st.ok && st.hi-st.lo >= snapshotCollect {
				// Reading a large study makes short-lived strings (the
				// driver's copy of each chunk: 35 MB at 608,000 answers)
				// while a run's heap is near the collector's goal, so
				// they grew the heap, and the process's peak, by 10–20 MB
				// (docs/performance.md). A collection first lets them
				// reuse what the run left: one mark of the live heap.
				runtime.GC()
			}
			part := 0
			w := newSnapshotWriter(func(body []byte) error {
				err := insertSnapshotPart(ctx, tx, st.id, part, st.generation, body)
				part++
				return err
			})
			if err := scanStudyRowsParallel(ctx, s.r, tx, st, w.add); err != nil {
				return err
			}
			if err := w.close(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		used = false
	}
	return used, err
}

// deleteSnapshot deletes every part of study's snapshot.
func deleteSnapshot(ctx context.Context, tx *sql.Tx, study int64) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM score_snapshots WHERE study_id = ?`, study)
	return err
}

// insertSnapshotPart writes part of study's snapshot under generation.
func insertSnapshotPart(ctx context.Context, tx *sql.Tx, study int64, part int, generation int64, body []byte) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO score_snapshots(study_id, part, generation, body) VALUES (?, ?, ?, ?)`,
		study, part, generation, body)
	return err
}
