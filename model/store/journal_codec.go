package store

// The answer journal's record codec: how a Response is framed on disk in
// the append-only journal a run writes before its answers are folded into
// the SQLite tables, and how a journal read back after a crash is split
// into its intact records and the damaged rest.
//
// Record = header (8 bytes) + payload:
//
//	offset 0  uint32 LE   n, the payload length (0 < n ≤ journalMaxPayload)
//	offset 4  uint32 LE   CRC-32C (Castagnoli) of the payload
//	offset 8  n bytes     payload
//
// Payload, version 1 (every field of Response, in this order):
//
//	byte        version = 1
//	string ×9   Key, Judge, Dataset, Context, Candidate, BankHash, Probe, Wording, Run
//	string      Raw
//	uint64 LE   math.Float64bits(Score): NaN payloads are kept bit for bit
//	uvarint     0 when Logprobs is nil, else len(Logprobs)+1; then those bytes
//	varint ×3   PromptTokens, CachedTokens, CompletionTokens
//	varint      Latency in nanoseconds
//	string ×2   ErrKind, Err
//	varint      Time.Unix(), seconds since 1970-01-01 UTC
//	uvarint     Time.Nanosecond(), < 1e9
//
// where string = uvarint byte length + the bytes, uvarint is
// binary.AppendUvarint and varint binary.AppendVarint (zig-zag).
//
// Decoding is exact: a payload decodes only if re-encoding what it holds
// gives the same bytes, so varints must be minimal, nothing may follow
// the last field and the version must be one this code writes. Time
// comes back as time.Unix(sec, nsec).UTC(): the instant is kept (the
// zero time and any year included) but not the location nor a monotonic
// reading; the store writes times as UTC text anyway.
//
// A new payload layout takes a new version byte; a reader keeps decoding
// the versions before it.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/bits"
	"strconv"
	"time"
)

const (
	// journalVersion is the payload layout appendJournalRecord writes.
	journalVersion = 1
	// journalHeader is the framing before each payload: length, CRC.
	journalHeader = 8
	// journalMaxPayload caps a payload's length, so that a garbage length
	// field (a torn header, a zero-filled or overwritten tail) is reported
	// as such rather than trusted as a record running to the end of data.
	journalMaxPayload = 64 << 20
	// journalMinPayload is the shortest payload: a version byte, twelve
	// empty strings, the score, nil logprobs, four zero varints, the time
	// 1970-01-01T00:00:00Z.
	journalMinPayload = 1 + 12 + 8 + 1 + 4 + 2
)

// The reasons decodeJournal stops before the end of its data, wrapped in
// its error (errors.Is): a torn last record is errJournalTruncated; the
// others mean bytes that are not a record this code wrote.
var (
	errJournalTruncated = errors.New("truncated record")
	errJournalTooLarge  = errors.New("record length too large")
	errJournalChecksum  = errors.New("record checksum mismatch")
	errJournalCorrupt   = errors.New("record payload malformed")
)

// journalCRC is the Castagnoli table (hardware-assisted on amd64 and
// arm64); CRC-32C detects every burst error of up to 32 bits.
var journalCRC = crc32.MakeTable(crc32.Castagnoli)

// journalPayloadLen is the exact payload length appendJournalRecord
// writes for r.
func journalPayloadLen(r *Response) int {
	n := 1 // version
	for _, s := range [...]string{r.Key, r.Judge, r.Dataset, r.Context, r.Candidate, r.BankHash, r.Probe, r.Wording, r.Run, r.Raw, r.ErrKind, r.Err} {
		n += uvarintLen(uint64(len(s))) + len(s)
	}
	n += 8 // score
	if r.Logprobs == nil {
		n++
	} else {
		n += uvarintLen(uint64(len(r.Logprobs))+1) + len(r.Logprobs)
	}
	n += varintLen(int64(r.PromptTokens)) + varintLen(int64(r.CachedTokens)) + varintLen(int64(r.CompletionTokens))
	n += varintLen(int64(r.Latency))
	n += varintLen(r.Time.Unix()) + uvarintLen(uint64(r.Time.Nanosecond()))
	return n
}

// journalRecordSize is the length of the record appendJournalRecord
// appends for r (header included).
func journalRecordSize(r *Response) int { return journalHeader + journalPayloadLen(r) }

// checkJournalRecord reports whether r fits in one record: a caller
// checks it before appendJournalRecord, which cannot fail. Only a reply
// of tens of megabytes fails it.
func checkJournalRecord(r *Response) error {
	if n := journalPayloadLen(r); n > journalMaxPayload {
		return fmt.Errorf("journal record of %d bytes exceeds the cap of %d (raw reply of %d bytes)", n, journalMaxPayload, len(r.Raw))
	}
	return nil
}

// uvarintLen is len(binary.AppendUvarint(nil, v)): 7 bits per byte.
func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// varintLen is len(binary.AppendVarint(nil, v)) (zig-zag: 2v or -2v-1).
func varintLen(v int64) int { return uvarintLen(uint64(v)<<1 ^ uint64(v>>63)) }

// appendJournalRecord appends one framed record holding r to b and
// returns the extended slice. It allocates only to grow b: at most once,
// to the larger of the record's exact size and twice cap(b). r must pass
// checkJournalRecord: a record over the cap would be unreadable, so
// appending one panics.
func appendJournalRecord(b []byte, r *Response) []byte {
	n := journalPayloadLen(r)
	if n > journalMaxPayload {
		panic(checkJournalRecord(r)) // the caller skipped the check
	}
	if need := journalHeader + n; cap(b)-len(b) < need {
		// One allocation holds the record, rather than a doubling series
		// through a large Raw; at least doubling keeps a buffer that
		// records are appended to one by one amortised.
		nb := make([]byte, len(b), max(len(b)+need, 2*cap(b)))
		copy(nb, b)
		b = nb
	}
	start := len(b)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = append(b, 0, 0, 0, 0) // the CRC, set below
	b = append(b, journalVersion)
	for _, s := range [...]string{r.Key, r.Judge, r.Dataset, r.Context, r.Candidate, r.BankHash, r.Probe, r.Wording, r.Run, r.Raw} {
		b = appendJournalString(b, s)
	}
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.Score))
	if r.Logprobs == nil {
		b = append(b, 0)
	} else {
		b = binary.AppendUvarint(b, uint64(len(r.Logprobs))+1)
		b = append(b, r.Logprobs...)
	}
	b = binary.AppendVarint(b, int64(r.PromptTokens))
	b = binary.AppendVarint(b, int64(r.CachedTokens))
	b = binary.AppendVarint(b, int64(r.CompletionTokens))
	b = binary.AppendVarint(b, int64(r.Latency))
	b = appendJournalString(b, r.ErrKind)
	b = appendJournalString(b, r.Err)
	b = binary.AppendVarint(b, r.Time.Unix())
	b = binary.AppendUvarint(b, uint64(r.Time.Nanosecond()))
	payload := b[start+journalHeader:]
	binary.LittleEndian.PutUint32(b[start+4:], crc32.Checksum(payload, journalCRC))
	return b
}

func appendJournalString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decodeJournal decodes the records at the start of data, in order.
// valid is the length of the prefix made of whole, intact records (rs
// are exactly those). When valid < len(data), err says why the rest was
// not read, naming the byte offset of the record it stopped at (valid)
// and wrapping one of errJournalTruncated, errJournalTooLarge,
// errJournalChecksum, errJournalCorrupt; err is nil iff valid ==
// len(data). A journal is append-only, so its writer truncates the file
// to valid before appending again.
//
// The strings of a record share one copy of its payload; Logprobs is a
// copy too, so rs never alias data.
func decodeJournal(data []byte) (rs []Response, valid int, err error) {
	if n := journalRecordCount(data); n > 0 {
		rs = make([]Response, 0, n) // not a doubling series of 300-byte Responses
	}
	for valid < len(data) {
		rest := data[valid:]
		if len(rest) < journalHeader {
			return rs, valid, journalErr(valid, len(rs), errJournalTruncated, "%d of the %d header bytes", len(rest), journalHeader)
		}
		n := binary.LittleEndian.Uint32(rest)
		if n > journalMaxPayload {
			return rs, valid, journalErr(valid, len(rs), errJournalTooLarge, "%d bytes, cap %d", n, journalMaxPayload)
		}
		if uint64(len(rest)-journalHeader) < uint64(n) {
			return rs, valid, journalErr(valid, len(rs), errJournalTruncated, "%d of the %d payload bytes", len(rest)-journalHeader, n)
		}
		payload := rest[journalHeader : journalHeader+int(n)]
		if crc32.Checksum(payload, journalCRC) != binary.LittleEndian.Uint32(rest[4:]) {
			return rs, valid, journalErr(valid, len(rs), errJournalChecksum, "%d-byte payload", n)
		}
		var r Response
		if err := decodeJournalPayload(payload, &r); err != nil {
			return rs, valid, journalErr(valid, len(rs), errJournalCorrupt, "%v", err)
		}
		rs = append(rs, r)
		valid += journalHeader + int(n)
	}
	return rs, valid, nil
}

// journalRecordCount counts the whole records with intact checksums at
// the start of data, without decoding them: the number decodeJournal
// returns unless a payload is malformed under a good checksum (which no
// crash or bit rot makes), so that a zero-filled or garbage tail never
// sizes rs.
func journalRecordCount(data []byte) int {
	count := 0
	for off := 0; len(data)-off >= journalHeader; count++ {
		n := binary.LittleEndian.Uint32(data[off:])
		if n < journalMinPayload || n > journalMaxPayload || uint64(len(data)-off-journalHeader) < uint64(n) ||
			crc32.Checksum(data[off+journalHeader:off+journalHeader+int(n)], journalCRC) != binary.LittleEndian.Uint32(data[off+4:]) {
			break
		}
		off += journalHeader + int(n)
	}
	return count
}

// journalErr is decodeJournal's error: the offset and index of the
// record it stopped at, the reason, and what was found.
func journalErr(off, index int, reason error, format string, args ...any) error {
	return fmt.Errorf("journal byte %d (record %d): %w: %s", off, index, reason, fmt.Sprintf(format, args...))
}

// journalFields names the payload's fields in order, for errors.
var journalFields = [...]string{"version", "Key", "Judge", "Dataset", "Context", "Candidate", "BankHash", "Probe", "Wording", "Run",
	"Raw", "Score", "Logprobs", "PromptTokens", "CachedTokens", "CompletionTokens", "Latency", "ErrKind", "Err", "Time seconds", "Time nanoseconds"}

// payloadReader reads a payload's fields in order; the first error
// sticks, naming the field and its offset in the payload.
type payloadReader struct {
	p     []byte // the payload
	s     string // the payload as one string, which the strings slice
	off   int    // where the next field starts
	at    int    // where the field last read starts, for errors
	field int    // index in journalFields of the next field
	err   error
}

func (pr *payloadReader) fail(msg string) {
	if pr.err == nil {
		pr.err = fmt.Errorf("field %s at payload byte %d: %s", journalFields[pr.field], pr.at, msg)
	}
}

// uvarint reads a minimal uvarint (the one AppendUvarint writes).
func (pr *payloadReader) uvarint() uint64 {
	if pr.err != nil {
		return 0
	}
	pr.at = pr.off
	v, n := binary.Uvarint(pr.p[pr.off:])
	switch {
	case n == 0:
		pr.fail("varint runs past the end")
	case n < 0:
		pr.fail("varint overflows 64 bits")
	case n > 1 && pr.p[pr.off+n-1] == 0:
		pr.fail("varint not minimal")
	default:
		pr.off += n
		pr.field++
		return v
	}
	return 0
}

// varint reads a zig-zag varint.
func (pr *payloadReader) varint() int64 {
	u := pr.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// int reads a varint into an int, refusing one the platform's int
// cannot hold.
func (pr *payloadReader) int() int {
	v := pr.varint()
	if int64(int(v)) != v {
		pr.field--
		pr.fail("value " + strconv.FormatInt(v, 10) + " overflows int")
		return 0
	}
	return int(v)
}

// span takes the next n bytes, whose length field was just read (the
// field count already moved past it, so an error steps back to name it),
// and returns their bounds in the payload.
func (pr *payloadReader) span(n uint64) (lo, hi int, ok bool) {
	if pr.err != nil {
		return 0, 0, false
	}
	if n > uint64(len(pr.p)-pr.off) {
		pr.field--
		pr.fail("length " + strconv.FormatUint(n, 10) + " runs past the end")
		return 0, 0, false
	}
	lo = pr.off
	pr.off += int(n)
	return lo, pr.off, true
}

func (pr *payloadReader) str() string {
	lo, hi, _ := pr.span(pr.uvarint())
	return pr.s[lo:hi]
}

// decodeJournalPayload fills r from a record's payload (layout in the
// file comment).
func decodeJournalPayload(p []byte, r *Response) error {
	if len(p) == 0 {
		return errors.New("empty payload")
	}
	if p[0] != journalVersion {
		return fmt.Errorf("payload version %d unknown (this build reads %d)", p[0], journalVersion)
	}
	pr := payloadReader{p: p, s: string(p), off: 1, field: 1}
	for _, f := range [...]*string{&r.Key, &r.Judge, &r.Dataset, &r.Context, &r.Candidate, &r.BankHash, &r.Probe, &r.Wording, &r.Run, &r.Raw} {
		*f = pr.str()
	}
	if pr.err == nil {
		pr.at = pr.off
		if len(p)-pr.off < 8 {
			pr.fail("8 bytes run past the end")
		} else {
			r.Score = math.Float64frombits(binary.LittleEndian.Uint64(p[pr.off:]))
			pr.off += 8
			pr.field++
		}
	}
	if lp := pr.uvarint(); lp > 0 {
		if lo, hi, ok := pr.span(lp - 1); ok {
			r.Logprobs = make([]byte, hi-lo) // non-nil even when empty
			copy(r.Logprobs, p[lo:hi])
		}
	}
	r.PromptTokens = pr.int()
	r.CachedTokens = pr.int()
	r.CompletionTokens = pr.int()
	r.Latency = time.Duration(pr.varint())
	r.ErrKind = pr.str()
	r.Err = pr.str()
	sec := pr.varint()
	nsec := pr.uvarint()
	if pr.err == nil && nsec >= 1e9 {
		pr.field--
		pr.fail("nanoseconds " + strconv.FormatUint(nsec, 10) + " not below 1e9")
	}
	if pr.err != nil {
		return pr.err
	}
	if pr.off != len(p) {
		return fmt.Errorf("%d bytes after the last field", len(p)-pr.off)
	}
	r.Time = time.Unix(sec, int64(nsec)).UTC()
	return nil
}
