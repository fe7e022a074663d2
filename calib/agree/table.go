package agree

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/prism-eval/prism/model"
)

// Key names one candidate of one context.
type Key struct{ Context, Candidate string }

// Table is what the metrics read: the candidates that have a label and a
// score from every judge, grouped by context. Human[c][k] is the label of
// candidate k of context c and Pred[j][c][k] judge j's score of it.
type Table struct {
	Contexts []string // ids, in byte order
	Human    [][]float64
	Judges   []string
	Pred     [][][]float64
}

// Candidates is the number of candidates in the table.
func (t *Table) Candidates() int {
	n := 0
	for _, h := range t.Human {
		n += len(h)
	}
	return n
}

// Build lays out labels and each judge's scores (scores[j] for judges[j],
// one score per candidate: the baseline averaged over repeats) as a Table.
// Only candidates with a finite label and a finite score from every judge
// are kept, so every judge is measured on the same candidates and the
// paired differences compare like with like; contexts left with fewer than
// two such candidates are dropped (nothing to rank within them). Each loss
// is a warning. Build fails when no context remains.
func Build(labels []model.Label, judges []string, scores []map[Key]float64) (*Table, []string, error) {
	if len(judges) == 0 || len(judges) != len(scores) {
		return nil, nil, errors.New("agree: no judges")
	}
	var warnings []string
	byCtx := map[string][]Key{}
	human := map[Key]float64{}
	for _, l := range labels {
		if math.IsNaN(l.Human) || math.IsInf(l.Human, 0) {
			continue
		}
		k := Key{l.Context, l.Candidate}
		human[k] = l.Human
	}
	for j, s := range scores {
		missing := 0
		for k := range human {
			if v, ok := s[k]; !ok || math.IsNaN(v) || math.IsInf(v, 0) {
				missing++
			}
		}
		if missing > 0 {
			warnings = append(warnings, fmt.Sprintf("judge %s has no score for %d of %d labelled candidates; every judge is measured on the candidates all judges scored", judges[j], missing, len(human)))
		}
	}
	for k := range human {
		if scoredByAll(k, scores) {
			byCtx[k.Context] = append(byCtx[k.Context], k)
		}
	}
	t := &Table{Judges: judges, Pred: make([][][]float64, len(judges))}
	short := 0
	for _, c := range slices.Sorted(maps.Keys(byCtx)) {
		keys := byCtx[c]
		if len(keys) < 2 {
			short++
			continue
		}
		slices.SortFunc(keys, func(a, b Key) int { return strings.Compare(a.Candidate, b.Candidate) })
		t.Contexts = append(t.Contexts, c)
		h := make([]float64, len(keys))
		for i, k := range keys {
			h[i] = human[k]
		}
		t.Human = append(t.Human, h)
		for j, s := range scores {
			p := make([]float64, len(keys))
			for i, k := range keys {
				p[i] = s[k]
			}
			t.Pred[j] = append(t.Pred[j], p)
		}
	}
	if short > 0 {
		warnings = append(warnings, fmt.Sprintf("%d contexts have fewer than two candidates with a label and every judge's score: left out", short))
	}
	if len(t.Contexts) == 0 {
		return nil, warnings, errors.New("no context has two or more candidates with a human label and a score from every judge")
	}
	return t, warnings, nil
}

func scoredByAll(k Key, scores []map[Key]float64) bool {
	for _, s := range scores {
		if v, ok := s[k]; !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
