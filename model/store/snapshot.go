package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
)

// A score snapshot is one study's answers packed in one BLOB
// (score_snapshots, schema 5), written when a run ends (Lease.Release), so
// that Scores — prism fit and export — reads one row rather than a row per
// request. It is used only while its generation is the study's: every
// transaction that writes to the study bumps studies.generation
// (requestUpsert.finish), so a snapshot never outlives a change, and
// deleting a study deletes its snapshot. Scores falls back to reading the
// requests when there is no current snapshot or it does not decode.
//
// Body, format 1: the format byte; the study's candidates (uvarint count,
// then context and candidate ids, each uvarint length + bytes); its
// conditions (count, then probe, wording, run); its answers (count, then
// per answer the uvarint candidate and condition indices and a byte: 0
// for no parsed score, 1 followed by the score's 8 IEEE-754 bytes, little
// endian). The answers are in no particular order; Scores orders them.

const snapshotFormat = 1

var errSnapshot = errors.New("store: malformed score snapshot")

// snapshotWriter encodes a snapshot from a study's answered requests as
// they are read, holding only the encoded answers (about 11 bytes each)
// and the study's candidates and conditions.
type snapshotWriter struct {
	pairOf map[[2]string]uint64
	pairs  [][2]string
	condOf map[[3]string]uint64
	conds  [][3]string
	recs   []byte
	n      int
}

func newSnapshotWriter() *snapshotWriter {
	return &snapshotWriter{pairOf: map[[2]string]uint64{}, condOf: map[[3]string]uint64{}}
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
	return nil
}

// body is the encoded snapshot.
func (w *snapshotWriter) body() []byte {
	b := make([]byte, 0, 64+len(w.recs)+len(w.pairs)*16)
	b = append(b, snapshotFormat)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(w.pairs)))
	for _, p := range w.pairs {
		str(p[0])
		str(p[1])
	}
	b = binary.AppendUvarint(b, uint64(len(w.conds)))
	for _, c := range w.conds {
		str(c[0])
		str(c[1])
		str(c[2])
	}
	b = binary.AppendUvarint(b, uint64(w.n))
	return append(b, w.recs...)
}

// noPositions are the positions of a dataset without candidates: every
// row in the one bucket of unknown ids. A snapshot is written without
// the dataset's order, which Scores applies when it reads it.
func noPositions() datasetPositions {
	return datasetPositions{isCand: []bool{false}, buckets: 1}
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

// decodeSnapshot adds the answers of a body to sr under bank, all or
// nothing: a malformed body adds none and returns errSnapshot.
func decodeSnapshot(body []byte, sr *studyRows, bank string) error {
	r := &snapshotReader{b: body}
	if r.byte() != snapshotFormat {
		return errSnapshot
	}
	// Each entry takes at least one byte, which bounds every count.
	pairs := make([][2]string, r.uvarint(uint64(len(r.b))))
	for i := range pairs {
		pairs[i] = [2]string{r.str(), r.str()}
	}
	conds := make([][3]string, r.uvarint(uint64(len(r.b))))
	for i := range conds {
		conds[i] = [3]string{r.str(), r.str(), r.str()}
	}
	type rec struct {
		pair, cond uint32
		score      float64
		missing    bool
	}
	recs := make([]rec, r.uvarint(uint64(len(r.b))))
	for i := range recs {
		p := r.uvarint(uint64(len(pairs)) - 1)
		c := r.uvarint(uint64(len(conds)) - 1)
		switch r.byte() {
		case 0:
			recs[i] = rec{pair: uint32(p), cond: uint32(c), missing: true}
		case 1:
			if len(r.b) < 8 {
				r.err = errSnapshot
				break
			}
			x := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
			r.b = r.b[8:]
			if math.IsNaN(x) || math.IsInf(x, 0) {
				r.err = errSnapshot
			}
			recs[i] = rec{pair: uint32(p), cond: uint32(c), score: x}
		default:
			r.err = errSnapshot
		}
		if r.err != nil {
			break
		}
	}
	if r.err != nil || len(r.b) != 0 || (len(recs) > 0 && (len(pairs) == 0 || len(conds) == 0)) {
		return errSnapshot
	}
	pairIdx := make([]int32, len(pairs))
	for i, p := range pairs {
		pairIdx[i] = sr.pair(p[0], p[1])
	}
	condIdx := make([]int32, len(conds))
	for i, c := range conds {
		condIdx[i] = sr.cond(c[0], c[1], c[2], bank)
	}
	sr.recs = slices.Grow(sr.recs, len(recs))
	for _, x := range recs {
		sr.recs = append(sr.recs, scoreRec{pair: pairIdx[x.pair], cond: condIdx[x.cond], answered: true, missing: x.missing, score: x.score})
	}
	return nil
}

// readSnapshot adds the study's answers to sr from its current snapshot;
// false when there is none (or it does not decode), and sr is unchanged.
func readSnapshot(ctx context.Context, tx *sql.Tx, sr *studyRows, st studyRef) (bool, error) {
	var body []byte
	err := tx.QueryRowContext(ctx, `SELECT body FROM score_snapshots WHERE study_id = ? AND generation = ?`,
		st.id, st.generation).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return decodeSnapshot(body, sr, st.bank) == nil, nil
}

// SnapshotScores writes the score snapshot of a study (judge on dataset
// under bankHash) unless its current one is there: what Lease.Release does
// when a run ends. A workspace older than schema 5 has none.
func (s *Store) SnapshotScores(ctx context.Context, dataset, judge, bankHash string) error {
	if !s.compact() {
		return nil
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		studies, err := studiesOf(ctx, tx, judge, dataset, bankHash, false)
		if err != nil {
			return err
		}
		for _, st := range studies {
			if st.bank != bankHash {
				continue
			}
			var current bool
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM score_snapshots WHERE study_id = ? AND generation = ?)`,
				st.id, st.generation).Scan(&current); err != nil || current {
				return err
			}
			w := newSnapshotWriter()
			if err := scanStudyRows(ctx, tx, st, w.add); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO score_snapshots(study_id, generation, body) VALUES (?, ?, ?)`,
				st.id, st.generation, w.body()); err != nil {
				return err
			}
		}
		return nil
	})
}
