package calib

import (
	"cmp"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// The global-mode bootstrap (docs/protocol.md §3 and §6) recomputes a pooled
// Spearman correlation on every resample. A resample is a multiset of the n
// original candidates: candidate u drawn c_u times. Sorting the resample
// is not needed to rank it: with each series sorted once, the tied values
// of the resample that equal one distinct original value v occupy the
// sorted positions lo … hi−1, with lo the number of draws of smaller
// values and hi − lo the draws of v, so their mid-rank is (lo + hi + 1)/2,
// the same integer expression MidRanks evaluates on the sorted resample.
// One pass over the sorted order with the counts gives every mid-rank, and
// a resample costs O(n) per series instead of a sort.
//
// The Pearson step needs Σ dx·dy and Σ dx² over the draws (Σ dy² once per
// resample). A candidate drawn c times adds its term c times, so the sums
// are also Σ_u c_u·dx_u·dy_u over the candidates, taken in the same pass
// over the sorted order. pearsonOfRanks adds the terms in draw order, but
// for n ≤ exactRankN every one of these sums is exact (see there), so the
// order does not matter and the statistics are equal (==) to those of
// ranking each materialised resample with MidRanks. Beyond that bound the
// terms are added in draw order, as pearsonOfRanks does. TestPooledRanks
// checks both paths against the sorting reference.
//
// Resamples are independent; they are spread over GOMAXPROCS workers, each
// writing its resample's slots of stats, so the result does not depend on
// the scheduling. The draws come from one generator in resample order.

// rankSeries is one series sorted once: ord lists the candidates by
// value, and the candidates ord[start[g]:start[g+1]] share the g-th
// distinct value.
type rankSeries struct {
	ord   []int32
	start []int32
}

func newRankSeries(x []float64) rankSeries {
	n := len(x)
	ord := make([]int32, n)
	for i := range ord {
		ord[i] = int32(i)
	}
	slices.SortFunc(ord, func(a, b int32) int { return cmp.Compare(x[a], x[b]) })
	start := make([]int32, 0, n+1)
	for i := 0; i < n; {
		start = append(start, int32(i))
		j := i + 1
		for j < n && x[ord[j]] == x[ord[i]] {
			j++
		}
		i = j
	}
	start = append(start, int32(n))
	return rankSeries{ord: ord, start: start}
}

// deviations sets dev[u] to the mid-rank of candidate u in the resample
// with counts cnt, minus the mean rank m = (n+1)/2, for every candidate
// (a candidate not drawn gets the value it would have). It returns
// Σ_u cnt[u]·dev[u]², which is exact when n ≤ exactRankN.
func (s *rankSeries) deviations(dev []float64, cnt []int32, m float64) (ss float64) {
	ord, start := s.ord, s.start
	pos := 0
	for g := 0; g < len(start)-1; g++ {
		a, b := start[g], start[g+1]
		lo := pos
		if b == a+1 { // a distinct value: the common case
			u := ord[a]
			c := int(cnt[u])
			pos += c
			d := float64(lo+pos+1)/2 - m
			dev[u] = d
			ss += float64(c) * (d * d)
			continue
		}
		for _, u := range ord[a:b] {
			pos += int(cnt[u])
		}
		d := float64(lo+pos+1)/2 - m // mean of ranks lo+1 … pos, as MidRanks
		for _, u := range ord[a:b] {
			dev[u] = d
		}
		ss += float64(pos-lo) * (d * d)
	}
	return ss
}

// crossSums returns Σ_u cnt[u]·dx_u·devy[u] and Σ_u cnt[u]·dx_u², with
// dx_u the rank deviation deviations would store, without storing it.
// Both sums are exact when n ≤ exactRankN.
func (s *rankSeries) crossSums(cnt []int32, devy []float64, m float64) (sxy, sxx float64) {
	ord, start := s.ord, s.start
	if len(start) == len(ord)+1 {
		return s.crossSumsDistinct(cnt, devy, m)
	}
	pos := 0
	for g := 0; g < len(start)-1; g++ {
		a, b := start[g], start[g+1]
		lo := pos
		if b == a+1 {
			u := ord[a]
			c := int(cnt[u])
			pos += c
			d := float64(lo+pos+1)/2 - m
			fc := float64(c)
			sxy += fc * (d * devy[u])
			sxx += fc * (d * d)
			continue
		}
		var cy float64 // Σ cnt[u]·devy[u] over the tie group
		for _, u := range ord[a:b] {
			pos += int(cnt[u])
			cy += float64(cnt[u]) * devy[u]
		}
		d := float64(lo+pos+1)/2 - m
		sxy += d * cy
		sxx += float64(pos-lo) * (d * d)
	}
	return sxy, sxx
}

// crossSumsDistinct is crossSums for a series without ties, two
// candidates a step with two sets of sums (exact, so their order and
// grouping do not matter).
func (s *rankSeries) crossSumsDistinct(cnt []int32, devy []float64, m float64) (sxy, sxx float64) {
	ord := s.ord
	var sxy1, sxx1 float64
	pos, j := 0, 0
	for ; j+1 < len(ord); j += 2 {
		u0, u1 := ord[j], ord[j+1]
		c0, c1 := int(cnt[u0]), int(cnt[u1])
		d0 := float64(2*pos+c0+1)/2 - m // (lo + hi + 1)/2 with hi = lo + c
		pos += c0
		d1 := float64(2*pos+c1+1)/2 - m
		pos += c1
		f0, f1 := float64(c0), float64(c1)
		sxy += f0 * (d0 * devy[u0])
		sxx += f0 * (d0 * d0)
		sxy1 += f1 * (d1 * devy[u1])
		sxx1 += f1 * (d1 * d1)
	}
	if j < len(ord) {
		u := ord[j]
		c := int(cnt[u])
		d := float64(2*pos+c+1)/2 - m
		f := float64(c)
		sxy += f * (d * devy[u])
		sxx += f * (d * d)
	}
	return sxy + sxy1, sxx + sxx1
}

// exactRankN is the largest resample size n for which Pearson's sums over
// mid-rank deviations are exact in float64, whatever the order of the
// terms. A mid-rank is a multiple of ½ and so is its deviation from
// (n+1)/2, with |deviation| ≤ (n−1)/2; a product of two deviations, times
// a count ≤ n, is a multiple of ¼, and every partial sum of such terms is
// a multiple of ¼ of magnitude at most n·((n−1)/2)² < n³/4. Multiples of ¼
// below 2⁵¹ in magnitude are exact float64 values, so with n³ < 2⁵³
// (n ≤ 208,063) every addition and product is exact, and the sums equal
// those pearsonOfRanks accumulates draw by draw. Above the bound pooledStats
// adds the terms in draw order, as pearsonOfRanks does.
const exactRankN = 200_000

// pooledParallelMin is the least n × (rows + 1) that pooledStats spreads
// over workers; smaller bootstraps do not repay the goroutines. A variable
// for the tests.
var pooledParallelMin = 4096

// pooledScratch is one worker's memory.
type pooledScratch struct {
	cnt        []int32
	devx, devy []float64
}

// pooledStats sets stats[m*B+b] to the Spearman correlation of preds[m]
// and human on resample b, the resamples drawn as PooledBootstrap
// documents.
func pooledStats(preds [][]float64, human []float64, B int, seed uint64, stats []float64) {
	n := len(human)
	if hasNaN(human) || slices.ContainsFunc(preds, hasNaN) {
		// NaN has no place in a sorted order; rank every resample as before.
		pooledStatsSorted(preds, human, B, seed, stats)
		return
	}
	series := make([]rankSeries, len(preds)+1)
	series[0] = newRankSeries(human)
	for m, p := range preds {
		series[m+1] = newRankSeries(p)
	}
	newScratch := func() *pooledScratch {
		sc := &pooledScratch{cnt: make([]int32, n), devy: make([]float64, n)}
		if n > exactRankN {
			sc.devx = make([]float64, n)
		}
		return sc
	}
	one := func(b int, draw []int, sc *pooledScratch) {
		clear(sc.cnt)
		for _, i := range draw {
			sc.cnt[i]++
		}
		m := float64(n+1) / 2
		syy := series[0].deviations(sc.devy, sc.cnt, m)
		if n > exactRankN {
			syy = 0
			for _, i := range draw {
				dy := sc.devy[i]
				syy += dy * dy
			}
		}
		for p := range preds {
			var sxy, sxx float64
			if n <= exactRankN {
				sxy, sxx = series[p+1].crossSums(sc.cnt, sc.devy, m)
			} else {
				series[p+1].deviations(sc.devx, sc.cnt, m)
				for _, i := range draw {
					dx, dy := sc.devx[i], sc.devy[i]
					sxy += dx * dy
					sxx += dx * dx
				}
			}
			// pearsonOfRanks's last step
			if sxx == 0 || syy == 0 {
				stats[p*B+b] = 0
			} else {
				stats[p*B+b] = sxy / math.Sqrt(sxx*syy)
			}
		}
	}
	g := rand.NewPCG(seed, 1)
	fill := func(draw []int) {
		for k := range draw {
			i, _ := bits.Mul64(g.Uint64(), uint64(n))
			draw[k] = int(i)
		}
	}
	W := min(runtime.GOMAXPROCS(0), B)
	if W <= 1 || n*(len(preds)+1) < pooledParallelMin {
		sc, draw := newScratch(), make([]int, n)
		for b := 0; b < B; b++ {
			fill(draw)
			one(b, draw, sc)
		}
		return
	}
	// One goroutine (this one) draws the resamples in order into free
	// buffers; W workers rank them.
	type job struct {
		b    int
		draw []int
	}
	free := make(chan []int, 2*W)
	for range 2 * W {
		free <- make([]int, n)
	}
	jobs := make(chan job, W)
	var wg sync.WaitGroup
	for range W {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := newScratch()
			for j := range jobs {
				one(j.b, j.draw, sc)
				free <- j.draw
			}
		}()
	}
	for b := 0; b < B; b++ {
		draw := <-free
		fill(draw)
		jobs <- job{b, draw}
	}
	close(jobs)
	wg.Wait()
}

// pooledAll sets out[k] to the pooled Spearman correlation (pearsonOfRanks)
// of preds[k*n:(k+1)*n] with the human mid-ranks ry, n = len(ry), for
// every k < len(out), on GOMAXPROCS workers. Each value is written to its
// own slot and computed as one call of globalFitter.pooledWith would
// compute it, so the values do not depend on the scheduling.
func pooledAll(ry, preds, out []float64) {
	n := len(ry)
	W := min(runtime.GOMAXPROCS(0), len(out))
	if n*len(out) < pooledParallelMin {
		W = 1
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range W {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rx, idx := make([]float64, n), []int(nil)
			var pairs []rankPair
			for {
				k := int(next.Add(1)) - 1
				if k >= len(out) {
					return
				}
				x := preds[k*n : (k+1)*n]
				if !globalSortedMidRanks || hasNaN(x) {
					if idx == nil {
						idx = make([]int, n)
					}
					MidRanks(rx, x, idx)
				} else {
					pairs = sortedMidRanks(rx, x, pairs)
				}
				out[k] = pearsonOfRanks(rx, ry)
			}
		}()
	}
	wg.Wait()
}

// rankPair is a value and its index, sorted together by sortedMidRanks.
type rankPair struct {
	v float64
	i int32
}

// sortedMidRanks stores in dst the mid-ranks of x, which holds no NaN, as
// MidRanks does, sorting (value, index) pairs in buf (grown as needed and
// returned) instead of an index through an interface. Mid-ranks do not
// depend on how a sort orders equal values, so they are MidRanks' exactly.
func sortedMidRanks(dst, x []float64, buf []rankPair) []rankPair {
	n := len(x)
	if len(dst) != n {
		panic("calib: sortedMidRanks length mismatch")
	}
	buf = slices.Grow(buf[:0], n)[:n]
	for i, v := range x {
		buf[i] = rankPair{v, int32(i)}
	}
	slices.SortFunc(buf, func(a, b rankPair) int { return cmp.Compare(a.v, b.v) })
	for i := 0; i < n; {
		j := i + 1
		for j < n && buf[j].v == buf[i].v {
			j++
		}
		r := float64(i+j+1) / 2 // mean of ranks i+1 … j
		for k := i; k < j; k++ {
			dst[buf[k].i] = r
		}
		i = j
	}
	return buf
}

func hasNaN(x []float64) bool { return slices.ContainsFunc(x, math.IsNaN) }

// pooledStatsSorted is pooledStats ranking each resample with MidRanks, on
// one core.
func pooledStatsSorted(preds [][]float64, human []float64, B int, seed uint64, stats []float64) {
	n := len(human)
	draw := make([]int, n)
	x, y := make([]float64, n), make([]float64, n)
	rx, ry := make([]float64, n), make([]float64, n)
	idx := make([]int, n)
	g := rand.NewPCG(seed, 1)
	for b := 0; b < B; b++ {
		for k := range draw {
			i, _ := bits.Mul64(g.Uint64(), uint64(n))
			draw[k] = int(i)
			y[k] = human[i]
		}
		MidRanks(ry, y, idx)
		for m, p := range preds {
			for k, i := range draw {
				x[k] = p[i]
			}
			MidRanks(rx, x, idx)
			stats[m*B+b] = pearsonOfRanks(rx, ry)
		}
	}
}

// pooledBootstrap is PooledBootstrap with the paired intervals against
// each of refs, all on the same resamples: diffs[r] is diff for refs[r].
func pooledBootstrap(preds [][]float64, human []float64, B int, seed uint64, refs ...int) (means []float64, ci [][2]float64, diffs [][][2]float64) {
	n, M := len(human), len(preds)
	if B < 1 || n == 0 {
		panic("calib: PooledBootstrap needs data and B ≥ 1")
	}
	for _, p := range preds {
		if len(p) != n {
			panic("calib: PooledBootstrap rows differ in length")
		}
	}
	means = make([]float64, M)
	for m, p := range preds {
		means[m] = Spearman(p, human)
	}
	stats := make([]float64, 2*M*B)
	pooledStats(preds, human, B, seed, stats[:M*B])
	rows := stats[:M*B]
	if len(refs) > 1 {
		rows = slices.Clone(rows) // percentileIntervals sorts stats in place
	}
	for r, ref := range refs {
		for m := range preds {
			for b := 0; b < B; b++ {
				stats[(M+m)*B+b] = rows[m*B+b] - rows[ref*B+b]
			}
		}
		var diff [][2]float64
		ci, diff = percentileIntervals(stats, M, B, ref)
		diffs = append(diffs, diff)
		if r+1 < len(refs) {
			copy(stats, rows)
		}
	}
	return means, ci, diffs
}
