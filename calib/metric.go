package calib

import (
	"math"
	"sort"
)

// Spearman returns the Spearman rank correlation of x and y: the Pearson
// correlation of their average ranks (tied values share the mean of the
// ranks they span, "mid-ranks"),
//
//	ρ = Σ (rx_i − r̄)(ry_i − r̄) / sqrt(Σ (rx_i − r̄)² · Σ (ry_i − r̄)²),
//
// with r̄ = (n+1)/2. It returns 0 when either side is constant (docs/protocol.md §6),
// including n < 2.
//
// Spearman panics if len(x) != len(y).
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("calib: Spearman length mismatch")
	}
	n := len(x)
	rx := make([]float64, n)
	ry := make([]float64, n)
	idx := make([]int, n)
	MidRanks(rx, x, idx)
	MidRanks(ry, y, idx)
	return pearsonOfRanks(rx, ry)
}

// pearsonOfRanks is Spearman's final step on ranks already computed.
func pearsonOfRanks(rx, ry []float64) float64 {
	n := len(rx)
	m := float64(n+1) / 2
	var sxy, sxx, syy float64
	for i := 0; i < n; i++ {
		dx, dy := rx[i]-m, ry[i]-m
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// MidRanks stores in dst the 1-based average ranks of x: tied values all get
// the mean of the ranks they occupy. idx is scratch of the same length.
//
// MidRanks panics if dst, x and idx differ in length.
func MidRanks(dst, x []float64, idx []int) {
	n := len(x)
	if len(dst) != n || len(idx) != n {
		panic("calib: MidRanks length mismatch")
	}
	for i := range idx {
		idx[i] = i
	}
	sortIndex(idx, x)
	for i := 0; i < n; {
		j := i + 1
		for j < n && x[idx[j]] == x[idx[i]] {
			j++
		}
		r := float64(i+j+1) / 2 // mean of ranks i+1 … j
		for k := i; k < j; k++ {
			dst[idx[k]] = r
		}
		i = j
	}
}

// sortIndex orders idx by x[idx]. Contexts hold a handful of candidates, so
// an insertion sort avoids the allocation of sort.Slice on the hot path.
func sortIndex(idx []int, x []float64) {
	if len(idx) > 32 {
		sort.Sort(indexSorter{idx, x})
		return
	}
	for i := 1; i < len(idx); i++ {
		v := idx[i]
		j := i
		for j > 0 && x[idx[j-1]] > x[v] {
			idx[j] = idx[j-1]
			j--
		}
		idx[j] = v
	}
}

type indexSorter struct {
	idx []int
	x   []float64
}

func (s indexSorter) Len() int           { return len(s.idx) }
func (s indexSorter) Less(i, j int) bool { return s.x[s.idx[i]] < s.x[s.idx[j]] }
func (s indexSorter) Swap(i, j int)      { s.idx[i], s.idx[j] = s.idx[j], s.idx[i] }

// PairwiseAccuracy returns the share of candidate pairs with unequal human
// scores that pred orders the same way: each such pair scores 1 when
// sign(pred_i − pred_j) = sign(human_i − human_j), ½ when pred ties and 0
// otherwise (docs/protocol.md §6). ok is false when no pair has unequal human
// scores; the context is then left out of the mean.
//
// PairwiseAccuracy panics if len(pred) != len(human).
func PairwiseAccuracy(pred, human []float64) (acc float64, ok bool) {
	if len(pred) != len(human) {
		panic("calib: PairwiseAccuracy length mismatch")
	}
	var credit float64
	pairs := 0
	for i := range human {
		for j := i + 1; j < len(human); j++ {
			dh := human[i] - human[j]
			if dh == 0 {
				continue
			}
			pairs++
			dp := pred[i] - pred[j]
			switch {
			case dp == 0:
				credit += 0.5
			case (dp > 0) == (dh > 0):
				credit++
			}
		}
	}
	if pairs == 0 {
		return 0, false
	}
	return credit / float64(pairs), true
}

// Pair is one human comparison inside a context: the rows, counted from
// the context's first row, of the candidate preferred and of the other.
type Pair struct{ Winner, Loser int32 }

// ComparisonAccuracy returns the share of the human comparisons pairs
// that pred orders the same way: each scores 1 when pred ranks its winner
// above its loser, ½ when the two predictions are exactly equal and 0
// otherwise (docs/protocol.md §6). A pair compared several times counts
// as often as it was compared. ok is false when there are no comparisons;
// the context is then left out of the mean.
//
// ComparisonAccuracy panics if a pair's row is outside pred.
func ComparisonAccuracy(pred []float64, pairs []Pair) (acc float64, ok bool) {
	if len(pairs) == 0 {
		return 0, false
	}
	var credit float64
	for _, p := range pairs {
		dp := pred[p.Winner] - pred[p.Loser]
		switch {
		case dp == 0:
			credit += 0.5
		case dp > 0:
			credit++
		}
	}
	return credit / float64(len(pairs)), true
}

// KendallTauB returns Kendall's τ_b of x and y over the pairs i < j where
// both are finite:
//
//	τ_b = (C − D) / √((n₀ − n_x)(n₀ − n_y))
//
// with C and D the concordant and discordant pairs, n₀ = m(m−1)/2 for the
// m usable items, n_x the pairs tied in x and n_y those tied in y. ok is
// false (τ undefined) when either side is constant or fewer than two
// items are usable. It panics if the lengths differ.
func KendallTauB(x, y []float64) (tau float64, ok bool) {
	if len(x) != len(y) {
		panic("calib: KendallTauB length mismatch")
	}
	var c, d, tx, ty, m float64
	for i := range x {
		if !finite(x[i]) || !finite(y[i]) {
			continue
		}
		m++
		for j := i + 1; j < len(x); j++ {
			if !finite(x[j]) || !finite(y[j]) {
				continue
			}
			sx, sy := sign(x[i]-x[j]), sign(y[i]-y[j])
			switch {
			case sx == 0 && sy == 0:
				tx++
				ty++
			case sx == 0:
				tx++
			case sy == 0:
				ty++
			case sx == sy:
				c++
			default:
				d++
			}
		}
	}
	n0 := m * (m - 1) / 2
	den := (n0 - tx) * (n0 - ty)
	if m < 2 || den <= 0 {
		return 0, false
	}
	return (c - d) / math.Sqrt(den), true
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func sign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
