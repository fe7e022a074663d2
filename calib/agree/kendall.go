package agree

import (
	"cmp"
	"math"
	"slices"
)

// KendallGlobal is Kendall's τ_b over all candidates, as
// calib.KendallTauB defines it, computed in O(n log n) by Knight's
// algorithm (Knight 1966; scipy.stats.kendalltau does the same): sort by
// (x, y), count the pairs tied in x (n_x) and in both (n_xy), then count
// the exchanges S a merge sort by y makes (the discordant pairs) and the
// pairs tied in y (n_y). With n₀ = n(n−1)/2,
//
//	C − D = n₀ − n_x − n_y + n_xy − 2S,
//	τ_b = (C − D) / √((n₀ − n_x)(n₀ − n_y)).
//
// NaN when either side is constant. The bootstrap computes it on every
// resample of thousands of candidates, where the O(n²) pair count of
// calib.KendallTauB would dominate.
func KendallGlobal(x, y []float64) float64 {
	n := len(x)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		if c := cmp.Compare(x[i], x[j]); c != 0 {
			return c
		}
		return cmp.Compare(y[i], y[j])
	})
	var nx, nxy float64
	for i := 0; i < n; {
		j, k := i+1, i
		for j < n && x[idx[j]] == x[idx[i]] {
			if y[idx[j]] != y[idx[k]] {
				nxy += pairs(j - k)
				k = j
			}
			j++
		}
		nxy += pairs(j - k)
		nx += pairs(j - i)
		i = j
	}
	ys := make([]float64, n)
	for i, k := range idx {
		ys[i] = y[k]
	}
	s := float64(mergeCount(ys, make([]float64, n)))
	var ny float64
	for i := 0; i < n; {
		j := i + 1
		for j < n && ys[j] == ys[i] {
			j++
		}
		ny += pairs(j - i)
		i = j
	}
	n0 := pairs(n)
	den := (n0 - nx) * (n0 - ny)
	if den <= 0 {
		return math.NaN()
	}
	return (n0 - nx - ny + nxy - 2*s) / math.Sqrt(den)
}

func pairs(t int) float64 { return float64(t) * float64(t-1) / 2 }

// mergeCount sorts a in place (buf is scratch of the same length) and
// returns the number of pairs i < j with a[i] > a[j].
func mergeCount(a, buf []float64) int {
	n := len(a)
	if n < 2 {
		return 0
	}
	m := n / 2
	s := mergeCount(a[:m], buf[:m]) + mergeCount(a[m:], buf[m:])
	i, j, k := 0, m, 0
	for i < m && j < n {
		if a[j] < a[i] {
			buf[k] = a[j]
			s += m - i // a[j] jumps every remaining left element
			j++
		} else {
			buf[k] = a[i]
			i++
		}
		k++
	}
	k += copy(buf[k:], a[i:m])
	copy(buf[k:], a[j:])
	copy(a, buf)
	return s
}
