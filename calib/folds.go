package calib

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/prism-eval/prism/model"
)

// SplitParts splits n items into k contiguous parts by numpy's array_split
// rule: the first n mod k parts hold ⌊n/k⌋+1 items, the rest ⌊n/k⌋. Part
// f is items [bounds[f], bounds[f+1]).
//
// SplitParts panics if k < 1 or n < 0.
func SplitParts(n, k int) (bounds []int) {
	if k < 1 || n < 0 {
		panic("calib: SplitParts needs k ≥ 1 and n ≥ 0")
	}
	bounds = make([]int, k+1)
	size, extra := n/k, n%k
	for f := 0; f < k; f++ {
		b := size
		if f < extra {
			b++
		}
		bounds[f+1] = bounds[f] + b
	}
	return bounds
}

// Permutation returns the default context order π (docs/protocol.md §5): ids sorted
// in byte order, then a Fisher–Yates shuffle driven by Go's math/rand/v2
// PCG-DXSM generator rand.NewPCG(seed, 0):
//
//	for i := n − 1; i ≥ 1; i−− { j := Uint64() mod (i+1); swap(π[i], π[j]) }
//
// Another tool replicates π by the same steps, or reads it with --order.
func Permutation(ids []string, seed uint64) []string {
	p := slices.Clone(ids)
	slices.Sort(p)
	g := rand.NewPCG(seed, 0)
	for i := len(p) - 1; i >= 1; i-- {
		j := int(g.Uint64() % uint64(i+1))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// ReadOrder reads a context order: one context id per line, surrounding
// blanks trimmed, empty lines and lines starting with '#' skipped. A
// repeated id is an error naming file and both lines.
func ReadOrder(r io.Reader, file string) ([]string, error) {
	// LimitLines reports an over-long line (or file) by name and line
	// before the scanner's own, anonymous ErrTooLong can.
	sc := bufio.NewScanner(model.LimitLines(r, file, model.MaxTableLine, model.MaxTableFile, "an order file"))
	sc.Buffer(make([]byte, 64*1024), model.MaxTableLine+2)
	seen := map[string]int{}
	var ids []string
	for line := 1; sc.Scan(); line++ {
		id := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\ufeff"))
		if id == "" || strings.HasPrefix(id, "#") {
			continue
		}
		if first, dup := seen[id]; dup {
			return nil, fmt.Errorf("%s:%d:1: context %q repeated (first on line %d)", file, line, id, first)
		}
		seen[id] = line
		ids = append(ids, id)
	}
	if err := sc.Err(); err != nil {
		if model.IsSizeError(err) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return ids, nil
}

// innerValues runs the inner cross-validation loop shared by the
// within-context and global fits (docs/protocol.md §5): the training units train,
// in π order, are split into folds parts (SplitParts); for each non-empty
// part [lo, hi), fitOthers fits every method on the training units
// outside it, and value scores each unit of the part under every γ's
// fit. vals, laid out [(method·len(gammas) + γ)·len(train) + i], gets
// the value of train[i]. rl is the scratch the paths solve into. A failed
// fit is returned naming the inner fold (1-based) and, for Taylor, γ.
func innerValues(train []int, folds int, gammas, vals []float64, rl *rule,
	fitOthers func(lo, hi int) ([]*methodPath, error),
	value func(unit int, r *rule) float64) error {
	G, nt := len(gammas), len(train)
	bounds := SplitParts(nt, folds)
	for p := range folds {
		lo, hi := bounds[p], bounds[p+1]
		if lo == hi {
			continue
		}
		ps, err := fitOthers(lo, hi)
		if err != nil {
			return fmt.Errorf("inner fold %d: %w", p+1, err)
		}
		for mi, mp := range ps {
			for gi, gam := range gammas {
				if err := mp.at(gam, rl); err != nil {
					return fmt.Errorf("inner fold %d: %w", p+1, err)
				}
				for i := lo; i < hi; i++ {
					vals[(mi*G+gi)*nt+i] = value(train[i], rl)
				}
			}
		}
	}
	return nil
}

// bestGamma is the index of the highest CV score in cv (one per γ of
// gammas); among exactly equal scores (bitwise, no tolerance) the largest
// γ wins (docs/protocol.md §5).
func bestGamma(cv, gammas []float64) int {
	best := -1
	for gi, s := range cv {
		if best < 0 || s > cv[best] || (s == cv[best] && gammas[gi] > gammas[best]) {
			best = gi
		}
	}
	return best
}

// outerTables collect the out-of-fold values of the outer cross-validation
// (docs/protocol.md §5) over n units: oof[(method·G + γ)·n + unit] at every γ of
// the grid, for the sweep, and selected[m][unit] at the γ the inner CV
// chose for method m, for the headline metric.
type outerTables struct {
	gammas   []float64
	n        int
	oof      []float64
	selected [numMethods][]float64
}

func newOuterTables(gammas []float64, methods []Method, n int) *outerTables {
	t := &outerTables{gammas: gammas, n: n, oof: make([]float64, len(methods)*len(gammas)*n)}
	for m := range t.selected {
		t.selected[m] = make([]float64, n)
	}
	return t
}

// score fills the tables for the test units of one outer fold and records
// each method's chosen fit in fold. ps are the methods' paths fitted on
// the fold's training units, sel and cv the inner CV's choices and scores,
// and value scores one unit under a fit, solved into rl. After a method's
// chosen fit is recorded rl holds it, and prism is called for PRISM's
// (to read its profile). Folds write disjoint units, so they may run
// concurrently. A failed fit is returned naming γ.
func (t *outerTables) score(fold *Fold, d *Design, methods []Method, ps []*methodPath, sel []int, cv [][]float64,
	test []int, rl *rule, value func(unit int, r *rule) float64, prism func()) error {
	G, n := len(t.gammas), t.n
	for mi, m := range methods {
		mp := ps[mi]
		for gi, gam := range t.gammas {
			if err := mp.at(gam, rl); err != nil {
				return fmt.Errorf("fit on the outer training set: %w", err)
			}
			for _, u := range test {
				t.oof[(mi*G+gi)*n+u] = value(u, rl)
			}
		}
		gi := sel[mi]
		for _, u := range test {
			t.selected[m][u] = t.oof[(mi*G+gi)*n+u]
		}
		if err := mp.at(t.gammas[gi], rl); err != nil {
			return fmt.Errorf("fit on the outer training set: %w", err)
		}
		recordFold(fold, m, d, rl, t.gammas[gi], cv[mi])
		if m == PRISM {
			prism()
		}
	}
	return nil
}
