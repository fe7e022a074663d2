package confirm

import (
	"crypto/sha256"
	"encoding/binary"
)

// SplitRule describes ConfirmSplit in one line; Report.SplitRule
// carries it so that a report names the rule its split came from.
const SplitRule = "u = first 8 bytes of SHA-256(benchmark ‖ 0x00 ‖ context id) as big-endian uint64; confirmation when u ≥ 2^63, else exploration"

// SplitHash is the number the exploration/confirmation split of
// docs/protocol.md §13 reads: the first 8 bytes, big-endian, of
//
//	SHA-256(UTF-8 benchmark ‖ 0x00 ‖ UTF-8 context id).
//
// The zero byte separates the two strings, so ("ab", "c") and ("a", "bc")
// hash differently.
func SplitHash(benchmark, contextID string) uint64 {
	h := sha256.New()
	h.Write([]byte(benchmark))
	h.Write([]byte{0})
	h.Write([]byte(contextID))
	var sum [sha256.Size]byte
	return binary.BigEndian.Uint64(h.Sum(sum[:0])[:8])
}

// ConfirmSplit reports whether the context is a confirmation context of
// the benchmark (docs/protocol.md §13): SplitHash(benchmark, contextID) ≥
// 2^63, i.e. the top bit of the hash's first byte is set. Otherwise it is
// an exploration context. The rule depends on the two names alone, so a
// context keeps its side whatever else the data holds.
func ConfirmSplit(benchmark, contextID string) bool {
	return SplitHash(benchmark, contextID) >= 1<<63
}
