package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"slices"
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

// encodeSnapshot packs the answers of one study read into sr.
func encodeSnapshot(sr *studyRows) []byte {
	b := make([]byte, 0, 16+len(sr.recs)*12)
	b = append(b, snapshotFormat)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(sr.pairs)))
	for _, p := range sr.pairs {
		str(p.context)
		str(p.candidate)
	}
	b = binary.AppendUvarint(b, uint64(len(sr.conds)))
	for _, c := range sr.conds {
		str(c.probe)
		str(c.wording)
		str(c.run)
	}
	n := 0
	for _, r := range sr.recs {
		if r.answered {
			n++
		}
	}
	b = binary.AppendUvarint(b, uint64(n))
	for _, r := range sr.recs {
		if !r.answered {
			continue
		}
		b = binary.AppendUvarint(b, uint64(r.pair))
		b = binary.AppendUvarint(b, uint64(r.cond))
		if r.missing {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.score))
	}
	return b
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
			sr := newStudyRows(noPositions())
			if err := scanStudyCompact(ctx, tx, sr, st); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO score_snapshots(study_id, generation, body) VALUES (?, ?, ?)`,
				st.id, st.generation, encodeSnapshot(sr)); err != nil {
				return err
			}
		}
		return nil
	})
}
