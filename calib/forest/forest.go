package forest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Options configures Fit. The zero value of every field but
// Trees means scikit-learn's RandomForestRegressor default.
type Options struct {
	Trees       int    // number of trees, ≥ 1 (scikit-learn's n_estimators)
	Seed        uint64 // tree t draws from rand.NewPCG(Seed, 1<<32 + t)
	MinLeaf     int    // fewest distinct samples in a leaf; 0 means 1 (min_samples_leaf)
	MaxFeatures int    // features visited per split; 0 means all p (max_features=1.0)
	MaxDepth    int    // deepest node, the root at depth 0; 0 means unlimited (max_depth=None)
	NoBootstrap bool   // grow every tree on all n rows, each of weight 1 (bootstrap=False)
	Workers     int    // trees grown at once; 0 means runtime.GOMAXPROCS(0); no effect on the result
}

// DefaultOptions returns the forest of the SAJA head: 300 trees,
// seed 42, and scikit-learn's RandomForestRegressor defaults otherwise.
func DefaultOptions() Options {
	return Options{Trees: 300, Seed: 42}
}

// forestStream is the PCG stream offset of tree 0; tree t uses
// forestStream + t, apart from the streams 0 (context order) and 1
// (bootstrap intervals) that other draws of a fit use with the same seed.
const forestStream = 1 << 32

// featureTol is scikit-learn's FEATURE_THRESHOLD: two sorted values of a
// feature closer than this are not split between, and a feature whose
// values in a node span no more than it is constant there.
const featureTol = 1e-7

// pureTol is scikit-learn's purity cutoff (the float64 machine epsilon):
// a node whose weighted variance of y is at most this is a leaf.
const pureTol = 0x1p-52

// forestNode is a node of a tree. feat < 0 marks a leaf, whose prediction
// is val; otherwise a row goes to node left when row[feat] ≤ thr and to
// node left+1 when not.
type forestNode struct {
	thr  float64
	val  float64
	feat int32
	left int32
}

// Forest is a fitted random forest regressor. Its methods are safe for
// concurrent use.
type Forest struct {
	p     int
	trees [][]forestNode
}

// Fit fits a random forest regressor to the n rows of x (n×p,
// row-major) and their targets y, with the semantics of scikit-learn's
// RandomForestRegressor (criterion squared error, splitter best; the
// defaults when opts is DefaultOptions):
//
// Tree t (0 ≤ t < Trees) draws from Go's PCG-DXSM generator
// rand.NewPCG(Seed, 2³² + t). Unless NoBootstrap, it first draws n row
// indices with replacement, i = ⌊u · n / 2⁶⁴⌋ with u = Uint64(); a row's
// weight wᵢ is the number of times it was drawn, and rows never drawn
// take no part in the tree. Starting from the root holding every row of
// positive weight, a node is a leaf, predicting the weighted mean
// Σwᵢyᵢ / Σwᵢ, when it holds fewer than max(2, 2·MinLeaf) distinct rows,
// when its weighted variance Σwᵢ(yᵢ − ȳ)² / Σwᵢ is at most the float64
// machine epsilon (pure), when it is at MaxDepth, or when no split below
// is admissible. Otherwise the node visits the features in a random
// order, the list 0, …, p−1 shuffled as it goes: for j = 0, 1, …, it
// swaps entries j and j + ⌊u · (p − j) / 2⁶⁴⌋ of the same generator and
// visits entry j. It stops after MaxFeatures visits once it has searched
// a feature that is not constant; a feature is constant in a node when
// its values there span at most 10⁻⁷ (then also in the node's
// descendants, which skip it too), and a visit to it searches nothing.
// (With MaxFeatures = p every feature is visited: the node visits only
// the features not known constant, in the same manner.) For
// a feature it sorts the node's rows by value; every position between
// consecutive values a < b with b > a + 10⁻⁷ that leaves at least MinLeaf
// distinct rows on either side is a candidate split with threshold
// a/2 + b/2 (a, if that rounds to b), rows with value ≤ threshold
// going left. The node takes the candidate of the largest impurity
// decrease, which for squared error is the largest
//
//	S_L²/W_L + S_R²/W_R,   S = Σ wᵢyᵢ, W = Σ wᵢ over each side,
//
// the first one met on ties (visit order, then increasing threshold).
// Predict averages the trees' predictions.
//
// This is scikit-learn's algorithm, not its random streams: the same
// options give forests of the same distribution, not the same forests.
// scikit-learn also rounds x to float32 before fitting and predicting;
// Fit keeps float64.
//
// The result depends on x, y and the options except Workers: each tree
// has its own generator, so fits are bitwise identical for any number of
// workers. Fit returns an error, without fitting, when n < 2, p < 1,
// the lengths of x and y do not match n and p, a value is NaN or
// infinite, Trees < 1, or another option is negative or MaxFeatures > p;
// and ctx's error when ctx ends before the fit.
func Fit(ctx context.Context, x []float64, n, p int, y []float64, opts Options) (*Forest, error) {
	switch {
	case n < 2:
		return nil, fmt.Errorf("calib: a forest needs at least 2 rows, got %d", n)
	case p < 1:
		return nil, fmt.Errorf("calib: a forest needs at least 1 feature, got %d", p)
	case len(x) != n*p:
		return nil, fmt.Errorf("calib: forest features hold %d values, want n×p = %d×%d = %d", len(x), n, p, n*p)
	case len(y) != n:
		return nil, fmt.Errorf("calib: forest targets hold %d values, want n = %d", len(y), n)
	case opts.Trees < 1:
		return nil, fmt.Errorf("calib: a forest needs at least 1 tree, got %d", opts.Trees)
	case opts.MinLeaf < 0 || opts.MaxDepth < 0 || opts.Workers < 0 || opts.MaxFeatures < 0:
		return nil, errors.New("calib: forest MinLeaf, MaxDepth, MaxFeatures and Workers must not be negative")
	case opts.MaxFeatures > p:
		return nil, fmt.Errorf("calib: forest MaxFeatures %d exceeds the %d features", opts.MaxFeatures, p)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("calib: forest feature %d of row %d is %v", i%p, i/p, v)
		}
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("calib: forest target of row %d is %v", i, v)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d := newForestData(x, n, p, y, opts)
	workers := opts.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, opts.Trees)
	trees := make([][]forestNode, opts.Trees)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := newTreeBuilder(d)
			for !failed.Load() {
				t := int(next.Add(1) - 1)
				if t >= opts.Trees {
					return
				}
				if ctx.Err() != nil {
					failed.Store(true)
					return
				}
				trees[t] = b.grow(opts.Seed, uint64(t))
			}
		}()
	}
	wg.Wait()
	if failed.Load() {
		return nil, ctx.Err()
	}
	return &Forest{p: p, trees: trees}, nil
}

// Trees returns the number of trees.
func (f *Forest) Trees() int { return len(f.trees) }

// Features returns p, the length of a row.
func (f *Forest) Features() int { return f.p }

// Predict returns the forest's prediction for one row of p features: the
// mean over the trees, in tree order, of the value of the leaf the row
// reaches. A NaN feature goes right at every split on it. Predict panics
// if len(row) ≠ p.
func (f *Forest) Predict(row []float64) float64 {
	if len(row) != f.p {
		panic(fmt.Sprintf("calib: Forest.Predict got %d features, want %d", len(row), f.p))
	}
	var s float64
	for _, t := range f.trees {
		s += t[leafOf(t, row)].val
	}
	return s / float64(len(f.trees))
}

// PredictRows returns Predict of each row of x (m×p, row-major), appended
// to dst; the results are bitwise those of Predict. It walks one tree for
// every row before the next tree, which keeps a tree in cache. It panics
// if len(x) is not a multiple of p.
func (f *Forest) PredictRows(dst, x []float64) []float64 {
	if len(x)%f.p != 0 {
		panic(fmt.Sprintf("calib: Forest.PredictRows got %d values, not rows of %d", len(x), f.p))
	}
	m := len(x) / f.p
	start := len(dst)
	dst = slices.Grow(dst, m)[:start+m]
	sums := dst[start:]
	clear(sums)
	for _, t := range f.trees {
		for i := range sums {
			sums[i] += t[leafOf(t, x[i*f.p:(i+1)*f.p])].val
		}
	}
	for i := range sums {
		sums[i] /= float64(len(f.trees))
	}
	return dst
}

func leafOf(t []forestNode, row []float64) int {
	i := 0
	for t[i].feat >= 0 {
		nd := &t[i]
		if row[nd.feat] <= nd.thr {
			i = int(nd.left)
		} else {
			i = int(nd.left) + 1
		}
	}
	return i
}

// histCell sums the rows of a node that take one value of a feature: Σwy,
// and Σw·2³² + the number of rows (weights and counts are integers).
type histCell struct {
	wy float64
	wn uint64
}

// treeBuilder holds one worker's buffers, reused tree after tree. Rows of
// positive weight are renumbered 0..m−1 (local ids, in row order) so the
// per-row arrays of a tree are dense.
type treeBuilder struct {
	d       *forestData
	g       rand.PCG
	count   []int32   // n: bootstrap counts
	local   []int32   // n: local id, or −1 when out of the bag
	lx      []float64 // p×m: features by column, local ids
	lw      []float64 // m: weights
	lwy     []float64 // m: weight × y
	lwn     []uint64  // m: weight·2³² + 1, a row's share of histCell.wn
	ly      []float64 // m: y
	lcode   []uint8   // m×pH: value codes, local ids
	idx     []int32   // pS×m: per sorted feature, local ids sorted by value; nodes own segments
	mem     []int32   // m: local ids; nodes own segments (the node's rows in any order)
	left    []bool    // m: goes left at the split being applied
	tmp     []int32   // m: partition buffer
	hist    []histCell
	present []uint32 // pH: the cells of hist in use, a bit each
	feats   []int32  // arena of the features still worth searching, per node
	perm    []int32  // p: this node's visit order
	liveH   []int    // this node's histogram indices
	done    []bool   // pH: histogram scanned (and cleared) at this node
	isConst []bool   // p: found constant at this node
	isLive  []bool   // p: live at this node (with MaxFeatures < p)
	stack   []forestTask
	nodes   []forestNode
	m       int
	// the best split so far of the node being split
	best           float64
	bestF, bestPos int
	bestThr        float64
	nodeW, nodeS   float64
	nodeCnt        int
}

// forestTask is a node to grow: rows [lo, hi) of every live segment, and
// its live features feats[fo : fo+fn].
type forestTask struct {
	node, lo, hi, depth, fo, fn int
}

func newTreeBuilder(d *forestData) *treeBuilder {
	n, p, pH := d.n, d.p, len(d.hfeat)
	return &treeBuilder{d: d, count: make([]int32, n), local: make([]int32, n),
		lx: make([]float64, n*p), lw: make([]float64, n), lwy: make([]float64, n), lwn: make([]uint64, n), ly: make([]float64, n),
		lcode: make([]uint8, n*pH), idx: make([]int32, n*(p-pH)), mem: make([]int32, n),
		left: make([]bool, n), tmp: make([]int32, n), hist: make([]histCell, pH*histBins), present: make([]uint32, pH),
		perm: make([]int32, p), liveH: make([]int, 0, pH), done: make([]bool, pH), isConst: make([]bool, p), isLive: make([]bool, p)}
}

// draw returns ⌊x · k / 2⁶⁴⌋ for the generator's next x.
func (b *treeBuilder) draw(k int) int {
	hi, _ := bits.Mul64(b.g.Uint64(), uint64(k))
	return int(hi)
}

// grow grows tree t and returns its nodes in a slice of their own.
func (b *treeBuilder) grow(seed, t uint64) []forestNode {
	d := b.d
	n, p, pH := d.n, d.p, len(d.hfeat)
	b.g.Seed(seed, forestStream+t)
	if d.noBootstrp {
		for i := range b.count {
			b.count[i] = 1
		}
	} else {
		clear(b.count)
		for range n {
			b.count[b.draw(n)]++
		}
	}
	m := 0
	for i, c := range b.count {
		if c == 0 {
			b.local[i] = -1
			continue
		}
		b.local[i] = int32(m)
		b.lw[m] = float64(c)
		b.ly[m] = d.y[i]
		b.lwy[m] = float64(c) * d.y[i]
		b.lwn[m] = uint64(c)<<32 | 1
		b.mem[m] = int32(m)
		copy(b.lcode[m*pH:(m+1)*pH], d.code[i*pH:(i+1)*pH])
		m++
	}
	b.m = m
	for f := range p {
		col, lcol := d.xcol[f*n:(f+1)*n], b.lx[f*m:(f+1)*m]
		for i, c := range b.count {
			if c != 0 {
				lcol[b.local[i]] = col[i]
			}
		}
	}
	for s := range p - pH {
		seg := b.idx[s*m : s*m : (s+1)*m]
		for _, i := range d.order[s*n : (s+1)*n] {
			if l := b.local[i]; l >= 0 {
				seg = append(seg, l)
			}
		}
	}
	b.feats = b.feats[:0]
	for f := range p {
		b.feats = append(b.feats, int32(f))
	}
	b.nodes = append(b.nodes[:0], forestNode{feat: -1})
	b.stack = append(b.stack[:0], forestTask{node: 0, lo: 0, hi: m, depth: 0, fo: 0, fn: p})
	for len(b.stack) > 0 {
		task := b.stack[len(b.stack)-1]
		b.stack = b.stack[:len(b.stack)-1]
		b.split(task)
	}
	return slices.Clone(b.nodes)
}

// consider offers the split of the node's rows between feature values a <
// b, nl distinct rows and sums sL, wL on the left.
func (b *treeBuilder) consider(f, nl int, sL, wL, a, v float64) {
	if nl < b.d.minLeaf || b.nodeCnt-nl < b.d.minLeaf {
		return
	}
	sR, wR := b.nodeS-sL, b.nodeW-wL
	if q := sL*sL/wL + sR*sR/wR; q > b.best {
		b.best, b.bestF, b.bestPos = q, f, nl
		b.bestThr = a/2 + v/2
		if b.bestThr == v || math.IsInf(b.bestThr, 0) {
			b.bestThr = a
		}
	}
}

// searchSorted searches the splits of sorted feature f over rows [lo, hi)
// and reports whether f is constant there.
func (b *treeBuilder) searchSorted(f, lo, hi int) (constant bool) {
	m, cnt := b.m, hi-lo
	s := b.d.sid[f]
	seg := b.idx[s*m+lo : s*m+hi]
	col := b.lx[f*m : (f+1)*m]
	if col[seg[cnt-1]] <= col[seg[0]]+featureTol {
		return true
	}
	// Rows of one value are summed first, then added to the left side,
	// as searchHist does: both searches compute the same bits.
	var sL, wL, gS, gW float64
	xv := col[seg[0]]
	for k := 0; k < cnt-1; k++ {
		l := seg[k]
		gS += b.lwy[l]
		gW += b.lw[l]
		xn := col[seg[k+1]]
		if xn != xv {
			sL, wL, gS, gW = sL+gS, wL+gW, 0, 0
			if xn > xv+featureTol {
				b.consider(f, k+1, sL, wL, xv, xn)
			}
		}
		xv = xn
	}
	return false
}

// searchHist searches the splits of histogram feature f from its
// histogram, which it clears, and reports whether f is constant.
func (b *treeBuilder) searchHist(f int) (constant bool) {
	h := b.d.hid[f]
	vals := b.d.vals[h]
	cells := b.hist[h*histBins : (h+1)*histBins]
	first := -1
	var sL, wL float64
	nl, prev := 0, 0.0
	for mask := b.present[h]; mask != 0; mask &= mask - 1 {
		c := bits.TrailingZeros32(mask)
		e := cells[c]
		cells[c] = histCell{}
		v := vals[c]
		if first < 0 {
			first = c
		} else if v > prev+featureTol {
			b.consider(f, nl, sL, wL, prev, v)
		}
		sL += e.wy
		wL += float64(e.wn >> 32)
		nl += int(uint32(e.wn))
		prev = v
	}
	b.present[h] = 0
	return prev <= vals[first]+featureTol
}

// split makes node task.node a leaf or splits it and queues its children.
func (b *treeBuilder) split(task forestTask) {
	W, S, ok := b.node(task)
	if !ok {
		return
	}
	live := b.feats[task.fo : task.fo+task.fn]
	b.histograms(b.mem[task.lo:task.hi], live)
	b.search(task, live, W, S)
	if b.bestF < 0 {
		for _, f := range live {
			b.isConst[f] = false
		}
		return
	}
	b.apply(task)
}

// node sets the task's node to a leaf predicting the weighted mean of its
// rows and reports whether it is worth splitting: enough rows, depth to
// spare, y not pure and some feature not constant. W and S are the rows'
// weight and weighted sum of y.
func (b *treeBuilder) node(task forestTask) (W, S float64, ok bool) {
	d := b.d
	lo, hi := task.lo, task.hi
	rows := b.mem[lo:hi]
	for _, l := range rows {
		W += b.lw[l]
		S += b.lwy[l]
	}
	mean := S / W
	nd := &b.nodes[task.node]
	nd.val, nd.feat = mean, -1
	cnt := hi - lo
	if cnt < 2 || cnt < 2*d.minLeaf || (d.maxDepth > 0 && task.depth >= d.maxDepth) {
		return W, S, false
	}
	var ss float64
	for _, l := range rows {
		r := b.ly[l] - mean
		ss += b.lw[l] * r * r
	}
	if ss/W <= pureTol {
		return W, S, false
	}
	if task.fn == 0 {
		return W, S, false // every feature constant
	}
	return W, S, true
}

// histograms fills the histograms of the node's live histogram features
// from its rows.
func (b *treeBuilder) histograms(rows []int32, live []int32) {
	d := b.d
	b.liveH = b.liveH[:0]
	for _, f := range live {
		if h := d.hid[f]; h >= 0 {
			b.liveH = append(b.liveH, h)
			b.done[h] = false
		}
	}
	if pH := len(d.hfeat); len(b.liveH) > 0 {
		for _, l := range rows {
			wn, wy := b.lwn[l], b.lwy[l]
			codes := b.lcode[int(l)*pH : int(l)*pH+pH]
			for _, h := range b.liveH {
				c := codes[h]
				b.present[h] |= 1 << c
				e := &b.hist[h*histBins+int(c)]
				e.wy += wy
				e.wn += wn
			}
		}
	}
}

// search visits the node's features in a random order until MaxFeatures
// are visited (and one is not constant), recording the best split in b
// and each visited feature's constancy, then clears the histograms it did
// not scan.
func (b *treeBuilder) search(task forestTask, live []int32, W, S float64) {
	d := b.d
	lo, hi, fn, cnt := task.lo, task.hi, task.fn, task.hi-task.lo
	// The visit order: a shuffle of all p features, dead ones (constant
	// in an ancestor) counted but not searched. When every feature is to
	// be visited, the live ones alone, in the same order, suffice.
	some := d.maxFeat < d.p
	perm := b.perm[:fn]
	copy(perm, live)
	if some {
		perm = b.perm[:d.p]
		for f := range perm {
			perm[f] = int32(f)
		}
		for _, f := range live {
			b.isLive[f] = true
		}
	}
	b.best, b.bestF, b.bestPos, b.bestThr = math.Inf(-1), -1, 0, 0
	b.nodeW, b.nodeS, b.nodeCnt = W, S, cnt
	visited, searched := 0, 0
	for j := 0; j < len(perm) && (visited < d.maxFeat || searched == 0); j++ {
		r := j + b.draw(len(perm)-j)
		perm[j], perm[r] = perm[r], perm[j]
		f := int(perm[j])
		visited++
		if some && !b.isLive[f] {
			continue
		}
		var constant bool
		if h := d.hid[f]; h >= 0 {
			constant = b.searchHist(f)
			b.done[h] = true
		} else {
			constant = b.searchSorted(f, lo, hi)
		}
		b.isConst[f] = constant
		if !constant { // a constant feature is dropped below
			searched++
		}
	}
	if some {
		for _, f := range live {
			b.isLive[f] = false
		}
	}
	for _, h := range b.liveH {
		if !b.done[h] {
			clear(b.hist[h*histBins : (h+1)*histBins])
			b.present[h] = 0
		}
	}
}

// apply splits the node at the best split found: its children's
// features, the rows partitioned in every segment, and the two child
// tasks pushed.
func (b *treeBuilder) apply(task forestTask) {
	d, m := b.d, b.m
	lo, hi, fn := task.lo, task.hi, task.fn
	rows := b.mem[lo:hi]
	bestF := b.bestF
	// The children search this node's features but those found constant,
	// in this node's order.
	fo := len(b.feats)
	for _, f := range b.feats[task.fo : task.fo+fn] {
		if b.isConst[f] {
			b.isConst[f] = false
		} else {
			b.feats = append(b.feats, f)
		}
	}
	cfn := len(b.feats) - fo

	col := b.lx[bestF*m : (bestF+1)*m]
	for _, l := range rows {
		b.left[l] = col[l] <= b.bestThr
	}
	nl := b.bestPos
	b.partition(rows, nl)
	for _, f := range b.feats[fo:] {
		if s := d.sid[f]; s >= 0 && int(f) != bestF {
			b.partition(b.idx[s*m+lo:s*m+hi], nl)
		}
	}

	child := len(b.nodes)
	nd := &b.nodes[task.node]
	nd.feat, nd.thr, nd.left = int32(bestF), b.bestThr, int32(child)
	b.nodes = append(b.nodes, forestNode{feat: -1}, forestNode{feat: -1})
	mid := lo + nl
	b.stack = append(b.stack,
		forestTask{node: child + 1, lo: mid, hi: hi, depth: task.depth + 1, fo: fo, fn: cfn},
		forestTask{node: child, lo: lo, hi: mid, depth: task.depth + 1, fo: fo, fn: cfn})
}

// partition reorders seg stably so that its rows going left (nl of them)
// come first.
func (b *treeBuilder) partition(seg []int32, nl int) {
	w, r := 0, b.tmp[:0]
	for _, l := range seg {
		if b.left[l] {
			seg[w] = l
			w++
		} else {
			r = append(r, l)
		}
	}
	if w != nl {
		panic("calib: forest partition lost rows")
	}
	copy(seg[w:], r)
}
