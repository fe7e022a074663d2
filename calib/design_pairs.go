package calib

import (
	"errors"
	"fmt"
	"slices"
)

// setPairs keeps in d.Pairs the comparisons of opts whose context is a
// context of d and whose winner and loser are both its candidates (rows
// are labelled candidates, so a comparison of an unlabelled candidate is
// not the fit's). The others are counted in a warning. A comparison of a
// candidate with itself, or with an empty id, is an error naming its
// line. Nil comparisons leave d.Pairs nil.
func (d *Design) setPairs(opts BuildOptions) ([]string, error) {
	if opts.Comparisons == nil {
		return nil, nil
	}
	cf := opts.ComparisonsFile
	if cf == "" {
		cf = "comparisons"
	}
	ctxOf := make(map[string]int, len(d.Contexts))
	for g, c := range d.Contexts {
		ctxOf[c] = g
	}
	d.Pairs = make([][]Pair, len(d.Contexts))
	ignored := 0
	for _, c := range opts.Comparisons {
		switch {
		case c.Context == "" || c.Winner == "" || c.Loser == "":
			return nil, fmt.Errorf("%s: field \"context\"/\"winner\"/\"loser\": empty id", at(cf, c.Line))
		case c.Winner == c.Loser:
			return nil, fmt.Errorf("%s: field \"loser\": %q is also the winner; a comparison is of two candidates", at(cf, c.Line), c.Loser)
		}
		g, ok := ctxOf[c.Context]
		if !ok {
			ignored++
			continue
		}
		ids := d.Candidates[g] // byte order: rows of the context
		w, okw := slices.BinarySearch(ids, c.Winner)
		l, okl := slices.BinarySearch(ids, c.Loser)
		if !okw || !okl {
			ignored++
			continue
		}
		d.Pairs[g] = append(d.Pairs[g], Pair{Winner: int32(w), Loser: int32(l)})
	}
	if ignored > 0 {
		return []string{fmt.Sprintf("%s: ignored %d of %d comparisons whose context or candidates are not in the fit (unlabelled, unscored or skipped)", cf, ignored, len(opts.Comparisons))}, nil
	}
	return nil, nil
}

// pairwiseDefined reports whether the pairwise metric is defined on
// context g: it has a comparison, or without comparison labels, two
// candidates with unequal human scores.
func (d *Design) pairwiseDefined(g int) bool {
	if d.Pairs != nil {
		return len(d.Pairs[g]) > 0
	}
	lo, hi := d.Off[g], d.Off[g+1]
	_, ok := PairwiseAccuracy(d.Human[lo:hi], d.Human[lo:hi])
	return ok
}

// pairwiseOf is the pairwise metric of context g's predictions pred (one
// per row of the context): the share of its comparisons pred orders as
// the humans did when the design has comparison labels, else of its
// pairs of unequal human scores (docs/protocol.md §6); 0 where undefined.
func (d *Design) pairwiseOf(g int, pred []float64) float64 {
	var acc float64
	if d.Pairs != nil {
		acc, _ = ComparisonAccuracy(pred, d.Pairs[g])
	} else {
		acc, _ = PairwiseAccuracy(pred, d.Human[d.Off[g]:d.Off[g+1]])
	}
	return acc
}

// ErrPairwiseUndefined is the error of a pairwise fit with no context
// where the metric is defined.
func (d *Design) ErrPairwiseUndefined() error {
	if d.Pairs != nil {
		return errors.New("no context of the fit has a human comparison of two of its candidates; pairwise accuracy is undefined")
	}
	return errors.New("no context has two candidates with unequal human scores; pairwise accuracy is undefined")
}
