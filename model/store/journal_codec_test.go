package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

// typicalJournalResponse is an answer as a server judge's run journals
// it: a 64-hex key, short coordinates, a short JSON reply.
func typicalJournalResponse() Response {
	return Response{
		Request: Request{Key: strings.Repeat("3f9a", 16), Judge: "gpt-4o-mini", Dataset: "summeval", Context: "M11",
			Candidate: "M11-M8", BankHash: "b7c1e2d4a9f0", Probe: "ATTR:+", Wording: "2", Run: "0"},
		Raw: `{"score": 7}`, Score: 7, PromptTokens: 812, CachedTokens: 768, CompletionTokens: 6,
		Latency: 734 * time.Millisecond, Time: time.Date(2026, 12, 1, 20, 30, 0, 123456789, time.UTC),
	}
}

// journalCases are the round-trip table: every field at its edges.
func journalCases() []Response {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("UTC+5:30", 5*3600+1800)
	}
	nonCanonicalNaN := math.Float64frombits(0x7ff8_dead_beef_0001) // quiet NaN, payload set
	signallingNaN := math.Float64frombits(0xfff0_0000_0000_0001)   // sign bit, signalling
	typical := typicalJournalResponse()
	return []Response{
		typical,
		{}, // every field empty or zero, Time the zero time, Logprobs nil
		{Request: Request{Key: "ключ", Judge: "評価者", Dataset: "données", Context: "🙂\x00\xff", Candidate: "a\nb", Probe: "neutral:Ä"},
			Raw: "naïve ✓", Score: 3.5, Err: "ошибка", ErrKind: "parse"},
		{Request: Request{Key: "nan"}, Score: nonCanonicalNaN, Logprobs: json.RawMessage{}},
		{Request: Request{Key: "snan"}, Score: signallingNaN, Logprobs: json.RawMessage(`[{"token":"7","logprob":-0.01}]`)},
		{Request: Request{Key: "+inf"}, Score: math.Inf(1)},
		{Request: Request{Key: "-inf"}, Score: math.Inf(-1)},
		{Request: Request{Key: "-0"}, Score: math.Copysign(0, -1)},
		{Request: Request{Key: "neg"}, PromptTokens: -1, CachedTokens: math.MinInt64, CompletionTokens: math.MaxInt64,
			Latency: -time.Nanosecond, Time: time.Date(2026, 3, 29, 2, 30, 0, 999999999, paris)},
		{Request: Request{Key: "maxlat"}, Latency: math.MaxInt64, Time: time.Date(-4712, 1, 1, 12, 0, 0, 1, time.UTC)},
		{Request: Request{Key: "far"}, Latency: math.MinInt64, Time: time.Date(292277026, 1, 1, 0, 0, 0, 5, time.UTC)},
		{Request: Request{Key: "before1970"}, Time: time.Unix(-1, 1)},
		{Request: Request{Key: "big"}, Raw: strings.Repeat("0123456789abcdef", 1<<16), Score: 1, // 1 MiB
			ErrKind: "timeout", Err: strings.Repeat("x", 300)},
	}
}

// sameJournalResponse fails t unless got is want as the journal keeps
// it: every field equal (Score by its bits, Logprobs' nil-ness kept) and
// Time the same instant in UTC.
func sameJournalResponse(t *testing.T, what string, got, want *Response) {
	t.Helper()
	if got.Request != want.Request {
		t.Errorf("%s: Request = %+v, want %+v", what, got.Request, want.Request)
	}
	if got.Raw != want.Raw {
		t.Errorf("%s: Raw differs (%d bytes, want %d)", what, len(got.Raw), len(want.Raw))
	}
	if math.Float64bits(got.Score) != math.Float64bits(want.Score) {
		t.Errorf("%s: Score bits %#016x, want %#016x", what, math.Float64bits(got.Score), math.Float64bits(want.Score))
	}
	if (got.Logprobs == nil) != (want.Logprobs == nil) || !bytes.Equal(got.Logprobs, want.Logprobs) {
		t.Errorf("%s: Logprobs = %#v, want %#v", what, got.Logprobs, want.Logprobs)
	}
	if got.PromptTokens != want.PromptTokens || got.CachedTokens != want.CachedTokens || got.CompletionTokens != want.CompletionTokens {
		t.Errorf("%s: tokens %d/%d/%d, want %d/%d/%d", what, got.PromptTokens, got.CachedTokens, got.CompletionTokens,
			want.PromptTokens, want.CachedTokens, want.CompletionTokens)
	}
	if got.Latency != want.Latency {
		t.Errorf("%s: Latency = %d, want %d", what, got.Latency, want.Latency)
	}
	if got.ErrKind != want.ErrKind || got.Err != want.Err {
		t.Errorf("%s: error %q %q, want %q %q", what, got.ErrKind, got.Err, want.ErrKind, want.Err)
	}
	if !got.Time.Equal(want.Time) || got.Time.Location() != time.UTC || got.Time != time.Unix(want.Time.Unix(), int64(want.Time.Nanosecond())).UTC() {
		t.Errorf("%s: Time = %v (%v), want %v in UTC", what, got.Time, got.Time.Location(), want.Time)
	}
	if want.Time.IsZero() && !got.Time.IsZero() {
		t.Errorf("%s: the zero time came back as %v", what, got.Time)
	}
}

func TestJournalRoundTrip(t *testing.T) {
	cases := journalCases()
	var all []byte
	for i := range cases {
		rec := appendJournalRecord(nil, &cases[i])
		if len(rec) != journalRecordSize(&cases[i]) {
			t.Errorf("case %d: record of %d bytes, journalRecordSize says %d", i, len(rec), journalRecordSize(&cases[i]))
		}
		rs, valid, err := decodeJournal(rec)
		if err != nil || valid != len(rec) || len(rs) != 1 {
			t.Fatalf("case %d: decode = %d responses, valid %d of %d, %v", i, len(rs), valid, len(rec), err)
		}
		sameJournalResponse(t, fmt.Sprintf("case %d (%q)", i, cases[i].Key), &rs[0], &cases[i])
		// Encoding is deterministic and appends after what b held.
		all = appendJournalRecord(all, &cases[i])
		if !bytes.Equal(all[len(all)-len(rec):], rec) {
			t.Errorf("case %d: appended to a non-empty buffer, the record differs", i)
		}
	}
	rs, valid, err := decodeJournal(all)
	if err != nil || valid != len(all) || len(rs) != len(cases) {
		t.Fatalf("all cases: %d responses, valid %d of %d, %v", len(rs), valid, len(all), err)
	}
	for i := range cases {
		sameJournalResponse(t, fmt.Sprintf("all cases, %d", i), &rs[i], &cases[i])
	}
}

// TestJournalLayout checks the typical record against its layout worked
// by hand from the file comment: header, version, the key's length byte,
// the score's bits, and the time's two varints at the end.
func TestJournalLayout(t *testing.T) {
	r := Response{Request: Request{Key: "k"}, Raw: "7", Score: 7, Logprobs: json.RawMessage("[]"), PromptTokens: -2,
		Latency: 64, ErrKind: "e", Time: time.Unix(-1, 300).In(time.FixedZone("X", 3600))}
	payload := []byte{1, // version
		1, 'k', 0, 0, 0, 0, 0, 0, 0, 0, // Key "k", then Judge…Run empty
		1, '7', // Raw
		0, 0, 0, 0, 0, 0, 0x1c, 0x40, // 7.0 = 0x401c000000000000, LE
		3, '[', ']', // Logprobs: length 2, written as 3
		3, 0, 0, // tokens: zig-zag(-2) = 3
		0x80, 0x01, // latency: zig-zag(64) = 128
		1, 'e', 0, // ErrKind, Err
		1,          // seconds: zig-zag(-1) = 1
		0xac, 0x02, // nanoseconds: 300 = 0b10_0101100
	}
	want := binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))
	want = binary.LittleEndian.AppendUint32(want, crc32.Checksum(payload, crc32.MakeTable(crc32.Castagnoli)))
	want = append(want, payload...)
	if got := appendJournalRecord(nil, &r); !bytes.Equal(got, want) {
		t.Fatalf("record\n got % x\nwant % x", got, want)
	}
	if n := journalPayloadLen(&Response{Time: time.Unix(0, 0)}); n != journalMinPayload {
		t.Errorf("shortest payload %d bytes, journalMinPayload says %d", n, journalMinPayload)
	}
	// CRC-32C's check value (RFC 3720 B.4: "123456789" gives 0xe3069283)
	// confirms the polynomial is Castagnoli's.
	if c := crc32.Checksum([]byte("123456789"), journalCRC); c != 0xe3069283 {
		t.Fatalf("CRC-32C check value %#x, want 0xe3069283", c)
	}
}

// journalOf encodes rs and returns the journal and its record boundaries
// (0 first, len last).
func journalOf(rs []Response) ([]byte, []int) {
	var b []byte
	bounds := []int{0}
	for i := range rs {
		b = appendJournalRecord(b, &rs[i])
		bounds = append(bounds, len(b))
	}
	return b, bounds
}

// smallJournalCases are the cases without the 1 MiB one, for tests that
// decode every prefix or every flip.
func smallJournalCases() []Response {
	var out []Response
	for _, r := range journalCases() {
		if len(r.Raw) < 1<<10 && len(r.Err) < 100 {
			out = append(out, r)
		}
	}
	return out
}

func TestJournalTruncations(t *testing.T) {
	cases := smallJournalCases()[:5]
	data, bounds := journalOf(cases)
	for l := 0; l <= len(data); l++ {
		rs, valid, err := decodeJournal(data[:l])
		k := 0 // the records wholly inside data[:l]
		for k+1 < len(bounds) && bounds[k+1] <= l {
			k++
		}
		if valid != bounds[k] || len(rs) != k {
			t.Fatalf("length %d: valid %d with %d records, want %d with %d", l, valid, len(rs), bounds[k], k)
		}
		for i := range rs {
			sameJournalResponse(t, fmt.Sprintf("length %d, record %d", l, i), &rs[i], &cases[i])
		}
		atBoundary := l == bounds[k]
		if (err == nil) != atBoundary {
			t.Fatalf("length %d (boundary %v): err = %v", l, atBoundary, err)
		}
		if err != nil {
			if !errors.Is(err, errJournalTruncated) {
				t.Fatalf("length %d: err %v is not errJournalTruncated", l, err)
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("journal byte %d (record %d): truncated record", valid, k)) {
				t.Fatalf("length %d: err %q does not name byte %d", l, err, valid)
			}
		}
	}
}

// TestJournalByteFlips damages a two-record journal one byte at a time,
// at every position with several XOR patterns: the damaged record and
// any after it must never come back, and decoding must say why.
func TestJournalByteFlips(t *testing.T) {
	cases := smallJournalCases()
	orig := []Response{cases[0], cases[4]} // the typical answer, one with logprobs
	data, bounds := journalOf(orig)
	buf := make([]byte, len(data))
	for pos := range data {
		damaged := 0 // the record holding pos
		if pos >= bounds[1] {
			damaged = 1
		}
		for _, x := range []byte{0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xff, 0x81, 0x5a} {
			copy(buf, data)
			buf[pos] ^= x
			rs, valid, err := decodeJournal(buf)
			if err == nil || valid != bounds[damaged] || len(rs) != damaged {
				t.Fatalf("byte %d ^ %#x: %d records, valid %d, err %v; want %d records, valid %d and an error",
					pos, x, len(rs), valid, err, damaged, bounds[damaged])
			}
			for i := range rs {
				sameJournalResponse(t, fmt.Sprintf("byte %d ^ %#x, record %d", pos, x, i), &rs[i], &orig[i])
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("journal byte %d ", valid)) {
				t.Fatalf("byte %d ^ %#x: err %q does not name byte %d", pos, x, err, valid)
			}
		}
	}
}

// frameJournal frames payload as a record with a correct CRC, so that
// only the payload's own checks can reject it.
func frameJournal(payload []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(payload, journalCRC))
	return append(b, payload...)
}

func TestJournalLengthCap(t *testing.T) {
	good := appendJournalRecord(nil, new(typicalJournalResponse()))
	for _, n := range []uint32{0xffffffff, journalMaxPayload + 1} {
		data := binary.LittleEndian.AppendUint32(bytes.Clone(good), n)
		data = append(data, make([]byte, 100)...)
		rs, valid, err := decodeJournal(data)
		if len(rs) != 1 || valid != len(good) || !errors.Is(err, errJournalTooLarge) {
			t.Fatalf("length %#x: %d records, valid %d of %d, err %v; want errJournalTooLarge after the first", n, len(rs), valid, len(good), err)
		}
		if want := fmt.Sprintf("journal byte %d (record 1): record length too large: %d bytes", len(good), n); !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("err %q, want it to start %q", err, want)
		}
		// Nothing of the announced size is allocated: the bytes decoding
		// allocates stay those of the good record and the error.
		if per := allocatedPer(20, func() { decodeJournal(data) }); per > 64<<10 {
			t.Fatalf("length %#x: decoding allocated %d bytes a time", n, per)
		}
	}
	// At the cap a length is trusted, and a short payload is a torn record.
	data := binary.LittleEndian.AppendUint32(nil, journalMaxPayload)
	data = append(data, make([]byte, 50)...)
	if _, valid, err := decodeJournal(data); valid != 0 || !errors.Is(err, errJournalTruncated) {
		t.Fatalf("length at the cap: valid %d, err %v; want a truncated record", valid, err)
	}
	big := Response{Raw: strings.Repeat("x", journalMaxPayload)}
	if err := checkJournalRecord(&big); err == nil {
		t.Fatal("checkJournalRecord passed a record over the cap")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("appendJournalRecord wrote a record over the cap")
			}
		}()
		appendJournalRecord(nil, &big)
	}()
	if err := checkJournalRecord(new(typicalJournalResponse())); err != nil {
		t.Fatal(err)
	}
}

// TestJournalZeroTail decodes a journal whose file was extended with
// zeros past its last record (as a file system may leave it after a
// crash): the records before are kept, the zeros reported, and the
// zeros size nothing (each 8 zero bytes reads as an empty record).
func TestJournalZeroTail(t *testing.T) {
	cases := smallJournalCases()
	data, bounds := journalOf(cases)
	if n := journalRecordCount(data); n != len(cases) {
		t.Fatalf("journalRecordCount = %d, want %d", n, len(cases))
	}
	data = append(data, make([]byte, 1<<20)...)
	rs, valid, err := decodeJournal(data)
	if len(rs) != len(cases) || valid != bounds[len(cases)] || !errors.Is(err, errJournalCorrupt) || !strings.Contains(err.Error(), "empty payload") {
		t.Fatalf("%d records, valid %d, err %v; want %d records, valid %d, an empty payload", len(rs), valid, err, len(cases), bounds[len(cases)])
	}
	if per := allocatedPer(10, func() { decodeJournal(data) }); per > 64<<10 {
		t.Fatalf("decoding %d records and 1 MiB of zeros allocated %d bytes a time", len(cases), per)
	}
}

// TestJournalMalformedPayloads frames payloads with a correct CRC that
// are not what appendJournalRecord writes: each stops decoding at its
// record with errJournalCorrupt naming the problem.
func TestJournalMalformedPayloads(t *testing.T) {
	good := appendJournalRecord(nil, new(typicalJournalResponse()))
	valid := good[journalHeader:] // the typical payload
	minimal := appendJournalRecord(nil, &Response{})[journalHeader:]
	with := func(p []byte, edits ...func([]byte) []byte) []byte {
		p = bytes.Clone(p)
		for _, e := range edits {
			p = e(p)
		}
		return p
	}
	// minimal is: version, 10 empty strings, 8 score bytes, logprobs 0,
	// 4 zero varints, 2 empty strings, seconds, nanoseconds.
	secAt := len(minimal) - 1 - varintLen(time.Time{}.Unix())
	for _, c := range []struct {
		name, want string
		payload    []byte
	}{
		{"empty payload (a zero-filled tail)", "empty payload", nil},
		{"unknown version", "payload version 2 unknown", with(valid, func(p []byte) []byte { p[0] = 2; return p })},
		{"version 0", "payload version 0 unknown", with(valid, func(p []byte) []byte { p[0] = 0; return p })},
		{"trailing byte", "1 bytes after the last field", append(bytes.Clone(valid), 0)},
		{"key length past the end", "field Key at payload byte 1: length 64 runs past the end", valid[:40]},
		{"ends inside the score", "field Score at payload byte 11: 8 bytes run past the end", minimal[:15]},
		{"ends before a string's length", "field Judge at payload byte 2: varint runs past the end", minimal[:2]},
		{"non-minimal varint", "field Key at payload byte 1: varint not minimal",
			with(minimal, func(p []byte) []byte { return append([]byte{1, 0x80, 0x00}, p[2:]...) })},
		{"varint overflow", "field Key at payload byte 1: varint overflows 64 bits",
			append([]byte{1}, bytes.Repeat([]byte{0xff}, 11)...)},
		{"logprobs length past the end", "field Logprobs at payload byte 19: length 126 runs past the end",
			with(minimal, func(p []byte) []byte { p[19] = 0x7f; return p })},
		{"nanoseconds of a second or more", "field Time nanoseconds at payload byte " + fmt.Sprint(len(minimal)-1) + ": nanoseconds 1000000000 not below 1e9",
			with(minimal, func(p []byte) []byte { return binary.AppendUvarint(p[:len(p)-1], 1e9) })},
		{"missing nanoseconds", "field Time nanoseconds at payload byte " + fmt.Sprint(len(minimal)-1) + ": varint runs past the end", minimal[:len(minimal)-1]},
		{"missing seconds", "field Time seconds at payload byte " + fmt.Sprint(secAt) + ": varint runs past the end", minimal[:secAt]},
	} {
		data := append(bytes.Clone(good), frameJournal(c.payload)...)
		data = append(data, good...) // a good record after the bad one is not read
		rs, v, err := decodeJournal(data)
		if len(rs) != 1 || v != len(good) || !errors.Is(err, errJournalCorrupt) {
			t.Errorf("%s: %d records, valid %d of %d, err %v; want errJournalCorrupt after the first", c.name, len(rs), v, len(good), err)
			continue
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("journal byte %d (record 1)", len(good))) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %q, want it to name byte %d and say %q", c.name, err, len(good), c.want)
		}
	}
	// A wrong CRC over a well-formed payload is a checksum mismatch.
	bad := bytes.Clone(good)
	bad[4] ^= 1
	if _, v, err := decodeJournal(bad); v != 0 || !errors.Is(err, errJournalChecksum) ||
		!strings.HasPrefix(err.Error(), "journal byte 0 (record 0): record checksum mismatch") {
		t.Fatalf("bad CRC: valid %d, err %v", v, err)
	}
}

// TestAppendJournalRecordAllocs checks that a reused buffer makes
// encoding allocation-free, and that a short one grows once.
func TestAppendJournalRecordAllocs(t *testing.T) {
	r := typicalJournalResponse()
	r.Logprobs = json.RawMessage(`[{"token":"7","logprob":-0.01}]`)
	buf := make([]byte, 0, 4096)
	if a := testing.AllocsPerRun(100, func() { buf = appendJournalRecord(buf[:0], &r) }); a != 0 {
		t.Errorf("appendJournalRecord into a reused buffer: %v allocs, want 0", a)
	}
	big := journalCases()[len(journalCases())-1]
	prefix := []byte("prefix")
	if a := testing.AllocsPerRun(5, func() { buf = appendJournalRecord(prefix, &big) }); a != 1 {
		t.Errorf("appendJournalRecord of a 1 MiB reply into a short buffer: %v allocs, want 1", a)
	}
	if !bytes.Equal(buf[:len(prefix)], prefix) || len(buf) != len(prefix)+journalRecordSize(&big) {
		t.Errorf("the grown buffer lost its prefix or holds %d bytes", len(buf))
	}
	// Records appended one by one to one buffer grow it geometrically:
	// 1000 records of ~150 bytes take about log2(150000) allocations.
	if a := testing.AllocsPerRun(3, func() {
		buf = nil
		for range 1000 {
			buf = appendJournalRecord(buf, &r)
		}
	}); a > 20 {
		t.Errorf("1000 appends to one buffer: %v allocs, want the growth amortised (≤ 20)", a)
	}
}

// FuzzDecodeJournal feeds arbitrary bytes: decoding never panics, stops
// at a record boundary, and is exact — re-encoding what it returns gives
// back the valid prefix byte for byte.
func FuzzDecodeJournal(f *testing.F) {
	cases := smallJournalCases()
	for i := range cases {
		f.Add(appendJournalRecord(nil, &cases[i]))
	}
	all, _ := journalOf(cases)
	f.Add(all)
	f.Add(all[:len(all)-3])
	f.Add(make([]byte, 40))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, valid, err := decodeJournal(data)
		if valid < 0 || valid > len(data) {
			t.Fatalf("valid %d outside 0..%d", valid, len(data))
		}
		if (err == nil) != (valid == len(data)) {
			t.Fatalf("valid %d of %d with err %v", valid, len(data), err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), fmt.Sprintf("journal byte %d (record %d): ", valid, len(rs))) {
			t.Fatalf("err %q does not name byte %d", err, valid)
		}
		var again []byte
		for i := range rs {
			again = appendJournalRecord(again, &rs[i])
		}
		if !bytes.Equal(again, data[:valid]) {
			t.Fatalf("re-encoding %d records gives % x, want % x", len(rs), again, data[:valid])
		}
	})
}

// FuzzJournalRoundTrip builds a Response from arbitrary field values:
// it must decode to itself, after whatever the buffer held before.
func FuzzJournalRoundTrip(f *testing.F) {
	f.Add("k", "j", "d", "c", "x", "h", "baseline", "0", "0", `{"score": 7}`, math.Float64bits(7), []byte("[]"), false,
		int64(812), int64(-1), int64(6), int64(734e6), "", "", int64(1764620000), uint32(5), []byte("prefix"))
	f.Add("", "", "", "", "", "", "", "", "", "", uint64(0x7ff8_0000_0000_0001), []byte(nil), true,
		int64(math.MinInt64), int64(math.MaxInt64), int64(0), int64(math.MinInt64), "timeout", "ошибка", int64(math.MinInt64), uint32(math.MaxUint32), []byte(nil))
	f.Fuzz(func(t *testing.T, key, judge, dataset, context, candidate, bank, probe, wording, run, raw string, score uint64,
		logprobs []byte, nilLogprobs bool, prompt, cached, completion, latency int64, errKind, errText string, sec int64, nsec uint32, prefix []byte) {
		r := Response{Request: Request{Key: key, Judge: judge, Dataset: dataset, Context: context, Candidate: candidate,
			BankHash: bank, Probe: probe, Wording: wording, Run: run}, Raw: raw, Score: math.Float64frombits(score),
			Logprobs: json.RawMessage(logprobs), PromptTokens: int(prompt), CachedTokens: int(cached), CompletionTokens: int(completion),
			Latency: time.Duration(latency), ErrKind: errKind, Err: errText, Time: time.Unix(sec, int64(nsec%1e9))}
		if nilLogprobs {
			r.Logprobs = nil
		} else if r.Logprobs == nil {
			r.Logprobs = json.RawMessage{}
		}
		b := appendJournalRecord(bytes.Clone(prefix), &r)
		if !bytes.Equal(b[:len(prefix)], prefix) || len(b) != len(prefix)+journalRecordSize(&r) {
			t.Fatalf("appending changed the prefix or wrote %d bytes, not %d", len(b)-len(prefix), journalRecordSize(&r))
		}
		rs, valid, err := decodeJournal(b[len(prefix):])
		if err != nil || len(rs) != 1 || valid != len(b)-len(prefix) {
			t.Fatalf("decode: %d records, valid %d, %v", len(rs), valid, err)
		}
		sameJournalResponse(t, "fuzzed", &rs[0], &r)
	})
}

// BenchmarkAppendJournalRecord encodes a typical answer into a reused
// buffer (expect 0 allocs/op).
func BenchmarkAppendJournalRecord(b *testing.B) {
	r := typicalJournalResponse()
	buf := make([]byte, 0, 4096)
	b.SetBytes(int64(journalRecordSize(&r)))
	b.ReportAllocs()
	for b.Loop() {
		buf = appendJournalRecord(buf[:0], &r)
	}
	journalSink = buf
}

// BenchmarkDecodeJournal decodes a journal of 1000 typical answers.
func BenchmarkDecodeJournal(b *testing.B) {
	var data []byte
	for i := range 1000 {
		r := typicalJournalResponse()
		r.Key = fmt.Sprintf("%064x", i)
		r.Candidate = fmt.Sprintf("M11-M%d", i%16)
		data = appendJournalRecord(data, &r)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var rs []Response
	for b.Loop() {
		var err error
		if rs, _, err = decodeJournal(data); err != nil {
			b.Fatal(err)
		}
	}
	journalSink = rs
}

var journalSink any

// allocatedPer is the bytes f allocates a call, over n calls.
func allocatedPer(n int, f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(n)
}
