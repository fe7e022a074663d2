package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"time"
)

// Leftover answer journals (docs/store.md, "Leftover answer journals").
// Older versions of prism had a server judge's run keep its answers in a file
// beside the workspace, WORKSPACE.answers-TOKEN, and folded it into the
// tables as it went; a run killed mid-way left the file and a row of the
// journals table (migration 0006) saying how far it was folded. Runs now
// commit their answers to the tables directly, so nothing writes journals
// any more; opening a workspace still folds one a killed run of an older
// prism left, once, so those paid answers are not sent again.

// journalsVersion is the schema version that added the journals table.
const journalsVersion = 6

// journalPath is the journal of the run whose lease token is token.
func journalPath(workspace, token string) string {
	return workspace + ".answers-" + token
}

// recoverJournals folds the leftover journals of runs that are no longer
// alive into the tables, then deletes them. A journal's torn last record
// (the process died inside its write) was never acknowledged and is
// dropped.
func (s *Store) recoverJournals(ctx context.Context) error {
	if s.readOnly || s.version < journalsVersion {
		return nil
	}
	orphans, err := orphanJournals(ctx, s.w)
	if err != nil {
		return err
	}
	var errs []error
	for _, o := range orphans {
		if err := s.recoverJournal(ctx, o.token, o.folded); err != nil && !errors.Is(err, errJournalTaken) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// errJournalTaken: another process folded the journal first.
var errJournalTaken = errors.New("answer journal folded by another process")

// orphan is a journal whose run is not alive.
type orphan struct {
	token  string
	folded int64
}

// orphanJournals lists the journals of runs that are not alive (an older
// prism still running folds its own).
func orphanJournals(ctx context.Context, q querier) ([]orphan, error) {
	rows, err := q.QueryContext(ctx, `SELECT j.token, j.folded, r.pid, r.host, r.heartbeat
		FROM journals j LEFT JOIN runs r ON r.token = j.token`)
	if err != nil {
		return nil, fmt.Errorf("answer journals: %w", err)
	}
	defer rows.Close()
	now := time.Now()
	var out []orphan
	for rows.Next() {
		var o orphan
		var pid sql.NullInt64
		var host, beat sql.NullString
		if err := rows.Scan(&o.token, &o.folded, &pid, &host, &beat); err != nil {
			return nil, fmt.Errorf("answer journals: %w", err)
		}
		if pid.Valid && live(Holder{PID: int(pid.Int64), Host: host.String, Heartbeat: parseTime(beat.String)}, o.token, now) {
			continue
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("answer journals: %w", err)
	}
	return out, nil
}

// recoverJournal folds what the journal token holds beyond folded and
// deletes its row (in the same transaction) and file. Should the tables
// refuse the answers as a whole, each is folded alone and those refused
// are dropped, as the run's own fold would have refused them.
func (s *Store) recoverJournal(ctx context.Context, token string, folded int64) error {
	path := journalPath(s.path, token)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("answer journal %s: %w", path, err)
	}
	var rs []Response
	if int64(len(data)) > folded {
		rs = decodeJournal(data[folded:])
	}
	w, err := s.NewResponseWriter(ctx)
	if err != nil {
		return err
	}
	defer w.Close()
	ours := func(tx *sql.Tx) error { return journalAt(ctx, tx, token, folded, false) }
	done := func(tx *sql.Tx) error { return journalAt(ctx, tx, token, folded, true) }
	err = w.PutWith(ctx, rs, done)
	if err != nil && !errors.Is(err, errJournalTaken) && len(rs) > 0 {
		for i := range rs {
			if err := w.PutWith(ctx, rs[i:i+1], ours); errors.Is(err, errJournalTaken) || ctx.Err() != nil {
				return err
			}
		}
		err = s.tx(ctx, done)
	}
	if err != nil {
		return fmt.Errorf("answer journal %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("answer journal %s: %w", path, err)
	}
	return nil
}

// journalAt checks that token's row is still at folded (no other process
// folded it), deleting the row when del is set; errJournalTaken if not.
func journalAt(ctx context.Context, tx *sql.Tx, token string, folded int64, del bool) error {
	var n int64
	var err error
	if del {
		var res sql.Result
		if res, err = tx.ExecContext(ctx, "DELETE FROM journals WHERE token = ? AND folded = ?", token, folded); err == nil {
			n, err = res.RowsAffected()
		}
	} else {
		err = tx.QueryRowContext(ctx, "SELECT count(*) FROM journals WHERE token = ? AND folded = ?", token, folded).Scan(&n)
	}
	if err != nil {
		return err
	}
	if n != 1 {
		return errJournalTaken
	}
	return nil
}

var journalCRC = crc32.MakeTable(crc32.Castagnoli)

// decodeJournal returns the whole, intact records at the start of data,
// stopping at the first torn or damaged one. A record is a uint32 LE
// payload length, the payload's CRC-32C (uint32 LE), then the payload
// (decodeJournalPayload).
func decodeJournal(data []byte) []Response {
	var rs []Response
	for len(data) >= 8 {
		n := binary.LittleEndian.Uint32(data)
		if uint64(n) > uint64(len(data)-8) {
			break
		}
		p := data[8 : 8+n]
		if crc32.Checksum(p, journalCRC) != binary.LittleEndian.Uint32(data[4:]) {
			break
		}
		r, ok := decodeJournalPayload(p)
		if !ok {
			break
		}
		rs = append(rs, r)
		data = data[8+n:]
	}
	return rs
}

// decodeJournalPayload reads payload version 1: the version byte; Key,
// Judge, Dataset, Context, Candidate, BankHash, Probe, Wording, Run, Raw
// as strings (uvarint length, bytes); the score's float64 bits (uint64
// LE); logprobs (uvarint 0 for none, else length+1, then the bytes); the
// three token counts and the latency in nanoseconds (varints); ErrKind
// and Err (strings); the time (varint Unix seconds, uvarint nanoseconds).
func decodeJournalPayload(p []byte) (Response, bool) {
	var r Response
	if len(p) == 0 || p[0] != 1 {
		return r, false
	}
	jr := journalReader{p: p[1:]}
	for _, f := range [...]*string{&r.Key, &r.Judge, &r.Dataset, &r.Context, &r.Candidate, &r.BankHash, &r.Probe, &r.Wording, &r.Run, &r.Raw} {
		*f = string(jr.bytes(jr.uvarint()))
	}
	if b := jr.bytes(8); len(b) == 8 {
		r.Score = math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	if lp := jr.uvarint(); lp > 0 {
		r.Logprobs = append([]byte{}, jr.bytes(lp-1)...)
	}
	r.PromptTokens, r.CachedTokens, r.CompletionTokens = int(jr.varint()), int(jr.varint()), int(jr.varint())
	r.Latency = time.Duration(jr.varint())
	r.ErrKind, r.Err = string(jr.bytes(jr.uvarint())), string(jr.bytes(jr.uvarint()))
	sec, nsec := jr.varint(), jr.uvarint()
	r.Time = time.Unix(sec, int64(nsec)).UTC()
	return r, !jr.bad && len(jr.p) == 0 && nsec < 1e9
}

// journalReader reads a payload's fields in order; a field that runs
// past the end sets bad (and reads as zero).
type journalReader struct {
	p   []byte
	bad bool
}

func (jr *journalReader) uvarint() uint64 {
	v, n := binary.Uvarint(jr.p)
	if n <= 0 {
		jr.bad = true
		return 0
	}
	jr.p = jr.p[n:]
	return v
}

func (jr *journalReader) varint() int64 {
	v, n := binary.Varint(jr.p)
	if n <= 0 {
		jr.bad = true
		return 0
	}
	jr.p = jr.p[n:]
	return v
}

func (jr *journalReader) bytes(n uint64) []byte {
	if n > uint64(len(jr.p)) {
		jr.bad = true
		return nil
	}
	b := jr.p[:n]
	jr.p = jr.p[n:]
	return b
}
