package calib

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Selector evaluates PRISM (α = 1) with the nested cross-validation of
// docs/protocol.md §5 on subsets of a design's columns, all on the same folds.
// The training statistics of every outer fold and inner part are summed
// once over the full design; a subset's statistics are their sub-blocks
// (G_SS, c_S, e_S), so a subset costs only its ridge paths and the
// held-out predictions.
type Selector struct {
	f       *fitter // the full design; read-only once built
	folds   []selFold
	Defined []int   // design contexts where the metric is defined, design order
	Vanilla float64 // mean metric of the baseline over Defined
}

type selFold struct {
	train, test []int
	outer       *gram   // statistics of the outer training contexts
	bounds      []int   // inner parts of train
	inner       []*gram // per inner part: the training contexts outside it (nil for an empty part)
}

func (s *gram) clone() *gram {
	c := *s
	c.G = append([]float64(nil), s.G...)
	c.c = append([]float64(nil), s.c...)
	c.e = append([]float64(nil), s.e...)
	return &c
}

// subGram sets dst to the statistics of the columns cols of src.
func subGram(dst, src *gram, cols []int) {
	m := len(cols)
	dst.q = m
	dst.G, dst.c, dst.e = dst.G[:m*m], dst.c[:m], dst.e[:m]
	for i, a := range cols {
		row := src.G[a*src.q:]
		for j, b := range cols {
			dst.G[i*m+j] = row[b]
		}
		dst.c[i], dst.e[i] = src.c[a], src.e[a]
	}
	dst.vv, dst.vy, dst.yy, dst.rows = src.vv, src.vy, src.yy, src.rows
}

// NewSelector prepares the folds of order (design context indices, π).
func NewSelector(d *Design, opts Options, order []int) *Selector {
	opts.Taylor = false
	f := newFitter(d, opts)
	f.methods = []Method{PRISM}
	s := &Selector{f: f}
	bounds := SplitParts(len(order), opts.Folds)
	for fo := 0; fo < opts.Folds; fo++ {
		lo, hi := bounds[fo], bounds[fo+1]
		train := append(append([]int(nil), order[:lo]...), order[hi:]...)
		fd := selFold{train: train, test: order[lo:hi], bounds: SplitParts(len(train), opts.Folds)}
		// Summed exactly as the fitter sums them, so that the full subset
		// reproduces Fit's PRISM bit for bit.
		for p := 0; p < opts.Folds; p++ {
			if fd.bounds[p] == fd.bounds[p+1] {
				fd.inner = append(fd.inner, nil)
				continue
			}
			f.sumExcept(train, fd.bounds[p], fd.bounds[p+1])
			fd.inner = append(fd.inner, f.sum.clone())
		}
		f.sumExcept(train, 0, 0)
		fd.outer = f.sum.clone()
		s.folds = append(s.folds, fd)
	}
	var v float64
	for g := range d.Contexts {
		if f.defined[g] {
			s.Defined = append(s.Defined, g)
			v += f.value(g, vanillaRule)
		}
	}
	if len(s.Defined) > 0 {
		s.Vanilla = v / float64(len(s.Defined))
	}
	return s
}

// SelectorWorker holds one goroutine's scratch.
type SelectorWorker struct {
	s        *Selector
	f        *fitter
	sub      *gram
	betaS    []float64
	full     *rule // PRISM on all q columns, zero outside the subset
	vals, cv []float64
	oof      []float64
}

func (s *Selector) worker() *SelectorWorker {
	q := s.f.d.Q()
	maxTrain := 0
	for _, fd := range s.folds {
		maxTrain = max(maxTrain, len(fd.train))
	}
	G := len(s.f.opts.Gammas)
	full := newRule(q, s.f.K)
	full.method = PRISM
	return &SelectorWorker{s: s, f: s.f.scratchCopy(), sub: newGram(q), betaS: make([]float64, q), full: full,
		vals: make([]float64, G*maxTrain), cv: make([]float64, G), oof: make([]float64, len(s.f.d.Contexts))}
}

// path factorizes PRISM on the columns cols of src.
func (w *SelectorWorker) path(src *gram, cols []int) (*methodPath, error) {
	subGram(w.sub, src, cols)
	mp, ok := newMethodPath(PRISM, w.sub, 0)
	if !ok {
		return nil, fmt.Errorf("calib: probe selection: %w", errEigen)
	}
	return mp, nil
}

// solve sets w.full to PRISM's fit at γ (α = 1), β zero outside cols, so
// that a subset's prediction is the rule of docs/protocol.md §4 on the
// full J̃ row (rule.predict).
func (w *SelectorWorker) solve(mp *methodPath, gamma float64, cols []int) {
	b := w.betaS[:len(cols)]
	mp.path.solve(gamma, b)
	clear(w.full.beta)
	for j, c := range cols {
		w.full.beta[c] = b[j]
	}
}

// fitFold sets w.full to one outer fold's fit on the columns cols
// (non-empty): γ is chosen by the inner CV on the fold's training contexts
// (pickGamma: highest mean, exact ties to the largest γ) and PRISM is
// fitted at it on the whole outer training set.
func (w *SelectorWorker) fitFold(fd *selFold, cols []int) error {
	gammas := w.s.f.opts.Gammas
	nt := len(fd.train)
	vals := w.vals[:len(gammas)*nt]
	for p, src := range fd.inner {
		if src == nil {
			continue
		}
		mp, err := w.path(src, cols)
		if err != nil {
			return err
		}
		for gi, gam := range gammas {
			w.solve(mp, gam, cols)
			for i := fd.bounds[p]; i < fd.bounds[p+1]; i++ {
				vals[gi*nt+i] = w.f.value(fd.train[i], w.full)
			}
		}
	}
	gi := w.f.pickGamma(vals, fd.train, w.cv)
	mp, err := w.path(fd.outer, cols)
	if err != nil {
		return err
	}
	w.solve(mp, gammas[gi], cols)
	return nil
}

// eval returns the out-of-fold mean of PRISM on the columns cols: in every
// outer fold, γ is chosen by the inner CV (pickGamma: highest mean,
// exact ties to the largest γ) and the fit on the whole outer training set
// predicts the test contexts. No columns is Vanilla.
func (w *SelectorWorker) eval(cols []int) (float64, error) {
	s := w.s
	if len(cols) == 0 {
		return s.Vanilla, nil
	}
	for i := range s.folds {
		fd := &s.folds[i]
		if err := w.fitFold(fd, cols); err != nil {
			return 0, err
		}
		for _, g := range fd.test {
			w.oof[g] = w.f.value(g, w.full)
		}
	}
	var sum float64
	for _, g := range s.Defined {
		sum += w.oof[g]
	}
	return sum / float64(len(s.Defined)), nil
}

// evalAll evaluates n column sets, set(i) giving the i-th, on every core.
// Results are stored by index, so they do not depend on scheduling.
// progress, when not nil, is called after each set with the running count,
// serialized and in increasing order.
func (s *Selector) EvalAll(ctx context.Context, n int, set func(i int, buf []int) []int, progress func(done, total int)) ([]float64, error) {
	out := make([]float64, n)
	var next atomic.Int64
	var mu sync.Mutex
	done := 0
	var firstErr error
	var wg sync.WaitGroup
	workers := min(max(1, runtime.GOMAXPROCS(0)), max(n, 1))
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := s.worker()
			buf := make([]int, 0, s.f.d.Q())
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				err := ctx.Err()
				if err == nil {
					out[i], err = w.eval(set(i, buf[:0]))
				}
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					next.Store(int64(n)) // stop handing out work
					mu.Unlock()
					return
				}
				done++
				if progress != nil {
					progress(done, n)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out, firstErr
}

// The accessors below let calib/budget evaluate its column rules on the
// selector's folds (docs/protocol.md §16) without reaching into them.

// Design is the design the selector evaluates.
func (s *Selector) Design() *Design { return s.f.d }

// Folds is the number of outer folds.
func (s *Selector) Folds() int { return len(s.folds) }

// Test is outer fold fo's test contexts (design indices).
func (s *Selector) Test(fo int) []int { return s.folds[fo].test }

// Train is outer fold fo's training contexts (design indices).
func (s *Selector) Train(fo int) []int { return s.folds[fo].train }

// VanillaValue is the baseline's within-context metric on context g.
func (s *Selector) VanillaValue(g int) float64 { return s.f.value(g, vanillaRule) }

// ColumnSD is the RMS of every centered column on outer fold fo's
// training rows (0 when it has none).
func (s *Selector) ColumnSD(fo int) []float64 {
	fd := s.folds[fo]
	q := s.f.d.Q()
	sd := make([]float64, q)
	for c := range sd {
		if fd.outer.rows > 0 {
			sd[c] = math.Sqrt(fd.outer.G[c*q+c] / float64(fd.outer.rows))
		}
	}
	return sd
}

// Worker returns a new goroutine-local evaluator.
func (s *Selector) Worker() *SelectorWorker { return s.worker() }

// FitFold fits PRISM on outer fold fo's training contexts with the
// columns cols (design order), γ chosen by the inner CV.
func (w *SelectorWorker) FitFold(fo int, cols []int) error { return w.fitFold(&w.s.folds[fo], cols) }

// Value is the last FitFold's within-context metric on context g.
func (w *SelectorWorker) Value(g int) float64 { return w.f.value(g, w.full) }

// Beta is the last FitFold's β over all q columns (zero outside its
// columns); it is overwritten by the next FitFold.
func (w *SelectorWorker) Beta() []float64 { return w.full.beta }

// Metric is the within-context metric of predictions pred on context g.
func (w *SelectorWorker) Metric(g int, pred []float64) float64 { return w.f.metricOf(g, pred) }
