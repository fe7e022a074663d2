package forest

import "slices"

// histBins is the most distinct values a feature may take for its splits
// to be searched by histogram: per node, the rows' weights and weighted
// targets are summed by value, then the values are scanned in order.
// Other features keep their rows sorted by value in every node. Both
// searches visit the same candidates in the same order (a variable so
// that tests run either search); at most 32, the bits of a uint32 mask.
var histBins = 32

// forestData is what every tree reads: the features by column; for a
// histogram feature, each row's value code and the sorted distinct values;
// for another, the row indices sorted by value (ties by index).
type forestData struct {
	n, p       int
	xcol       []float64 // p×n, column-major
	y          []float64
	hid        []int       // p: histogram index of a feature, or −1
	sid        []int       // p: sorted-list index of a feature, or −1
	hfeat      []int       // pH: feature of histogram index h
	vals       [][]float64 // pH: sorted distinct values
	code       []uint8     // n×pH, row-major: rank of the row's value in vals[h]
	order      []int32     // pS×n: rows sorted by value, per sorted feature
	minLeaf    int
	maxFeat    int
	maxDepth   int
	noBootstrp bool
}

func newForestData(x []float64, n, p int, y []float64, opts Options) *forestData {
	d := &forestData{n: n, p: p, xcol: make([]float64, n*p), y: y, hid: make([]int, p), sid: make([]int, p),
		minLeaf: max(opts.MinLeaf, 1), maxFeat: opts.MaxFeatures, maxDepth: opts.MaxDepth, noBootstrp: opts.NoBootstrap}
	if d.maxFeat == 0 {
		d.maxFeat = p
	}
	for i := range n {
		for f := range p {
			d.xcol[f*n+i] = x[i*p+f]
		}
	}
	var sorted []int
	for f := range p {
		col := d.xcol[f*n : (f+1)*n]
		v := slices.Clone(col)
		slices.Sort(v)
		v = slices.Compact(v)
		d.hid[f], d.sid[f] = -1, -1
		if len(v) <= histBins {
			d.hid[f] = len(d.hfeat)
			d.hfeat = append(d.hfeat, f)
			d.vals = append(d.vals, v)
		} else {
			d.sid[f] = len(sorted)
			sorted = append(sorted, f)
		}
	}
	pH := len(d.hfeat)
	d.code = make([]uint8, n*pH)
	for h, f := range d.hfeat {
		for i, v := range d.xcol[f*n : (f+1)*n] {
			c, _ := slices.BinarySearch(d.vals[h], v)
			d.code[i*pH+h] = uint8(c)
		}
	}
	d.order = make([]int32, len(sorted)*n)
	for s, f := range sorted {
		col := d.xcol[f*n : (f+1)*n]
		o := d.order[s*n : (s+1)*n]
		for i := range o {
			o[i] = int32(i)
		}
		slices.SortFunc(o, func(a, b int32) int {
			switch va, vb := col[a], col[b]; {
			case va < vb:
				return -1
			case va > vb:
				return 1
			}
			return int(a - b)
		})
	}
	return d
}
