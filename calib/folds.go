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
