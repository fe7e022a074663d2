package clikit

import (
	"fmt"
	"sort"
	"strings"
)

// Nearest is the candidate closest to name, for a "did you mean" after a
// typo: the one at the smallest edit distance (at most 2, and less than
// name's length, so that a short name does not match everything), else
// the only candidate name is a prefix of. "" when none is near.
// Ties go to the first in sorted order, so the suggestion is stable.
func Nearest(name string, candidates []string) string {
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	best, bestD := "", 3
	for _, c := range sorted {
		if d := editDistance(name, c); d < bestD && d < len(name) {
			best, bestD = c, d
		}
	}
	if best != "" {
		return best
	}
	var prefixed []string
	for _, c := range sorted {
		if len(name) >= 2 && strings.HasPrefix(c, name) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}

// didYouMean is the "; did you mean X?" a refusal ends with, or "".
func didYouMean(quoted string) string {
	if quoted == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %s?", quoted)
}

// editDistance is the optimal-string-alignment distance: Levenshtein's
// insertions, deletions and substitutions plus the transposition of two
// adjacent letters, the commonest typo (-sede for -seed).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance between ra[:i] and rb[:j].
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
