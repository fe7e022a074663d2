package judge

import (
	"bytes"
	"crypto/sha256"
	"slices"
	"strconv"
)

// Presentation orders for batched pointwise scoring (docs/protocol.md
// §14, paper §B.6): cyclic shifts of a seeded random order and of its
// reversal, interleaved so that orders 2j and 2j+1 are exact reversals of
// each other.
//
// For a context with n candidates (ids c_0 … c_{n−1}) and seed S:
//
//	π      = the candidates sorted by SHA-256(decimal S ‖ 0x00 ‖ context id ‖ 0x00 ‖ candidate id),
//	         bytes ascending (ties, impossible in practice, by dataset index)
//	j      = ⌊k/2⌋ mod n
//	F_j[p] = π[(p + j) mod n]                         p = 0 … n−1
//	O_k    = F_j when k is even, F_j reversed (O_k[p] = F_j[n−1−p]) when k is odd
//
// O_k[p] is the candidate shown at position p (label p+1). The first 2n
// orders put every candidate at every position twice (once per
// direction); from k = 2n on the orders repeat. Every pair (2j, 2j+1)
// gives each candidate the mean position (n−1)/2, so averaging an even
// number of orders cancels any position effect linear in p. The sequence
// is prefix-stable: order k does not depend on how many orders are asked.

// OrderPlan is the presentation orders of one context's candidates.
type OrderPlan struct {
	base []int // π as indices into the candidate list
}

// NewOrderPlan returns the plan of a context's candidates (ids in dataset
// order) under seed.
func NewOrderPlan(seed int64, contextID string, candidateIDs []string) OrderPlan {
	n := len(candidateIDs)
	keys := make([][32]byte, n)
	prefix := []byte(strconv.FormatInt(seed, 10) + "\x00" + contextID + "\x00")
	for i, id := range candidateIDs {
		keys[i] = sha256.Sum256(append(slices.Clip(prefix), id...))
	}
	base := make([]int, n)
	for i := range base {
		base[i] = i
	}
	slices.SortStableFunc(base, func(a, b int) int { return bytes.Compare(keys[a][:], keys[b][:]) })
	return OrderPlan{base: base}
}

// N is the number of candidates.
func (p OrderPlan) N() int { return len(p.base) }

// Order returns O_k: Order(k)[pos] is the index of the candidate shown at
// pos (0-based).
func (p OrderPlan) Order(k int) []int {
	n := len(p.base)
	out := make([]int, n)
	if n == 0 {
		return out
	}
	j := (k / 2) % n
	for pos := range out {
		q := pos
		if k%2 == 1 {
			q = n - 1 - pos
		}
		out[pos] = p.base[(q+j)%n]
	}
	return out
}

// Positions returns the inverse of Order(k): Positions(k)[i] is the
// 0-based position of candidate i in order k.
func (p OrderPlan) Positions(k int) []int {
	o := p.Order(k)
	out := make([]int, len(o))
	for pos, i := range o {
		out[i] = pos
	}
	return out
}

// OrderRunLabel is the stored run label of order k, repeat r of a batched
// study: "o<k>" for the first call of an order, "o<k>r<r>" for a repeat
// (a separate call showing the same order).
func OrderRunLabel(k, r int) string {
	if r == 0 {
		return "o" + strconv.Itoa(k)
	}
	return "o" + strconv.Itoa(k) + "r" + strconv.Itoa(r)
}

// ParseOrderRunLabel reads a label OrderRunLabel wrote; ok is false for
// any other label (a pointwise run's "0", "1", …).
func ParseOrderRunLabel(s string) (k, r int, ok bool) {
	if len(s) < 2 || s[0] != 'o' {
		return 0, 0, false
	}
	s = s[1:]
	ks, rs := s, ""
	if i := bytes.IndexByte([]byte(s), 'r'); i >= 0 {
		ks, rs = s[:i], s[i+1:]
		if rs == "" {
			return 0, 0, false
		}
	}
	k, err := atoiStrict(ks)
	if err != nil {
		return 0, 0, false
	}
	if rs != "" {
		if r, err = atoiStrict(rs); err != nil || r == 0 {
			return 0, 0, false
		}
	}
	return k, r, true
}

// atoiStrict is a non-negative decimal with no sign, no leading zero
// (except "0") and at most 9 digits, so each label has one spelling.
func atoiStrict(s string) (int, error) {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, strconv.ErrSyntax
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, strconv.ErrSyntax
		}
	}
	return strconv.Atoi(s)
}
