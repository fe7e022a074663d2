package store

import (
	"context"
	"slices"
)

// StudyAnswers is the answered coordinates of one study (judge × dataset ×
// bank hash), decoded from its score snapshot (snapshot.go) while that is
// of the study's generation: the same set AnsweredIn reads row by row from
// the study's requests, read instead from a few BLOBs. It is what lets an
// estimate of a finished study (prism run --dry-run, prism score on a
// workspace) cost a pass over its candidates, not a query a context.
//
// Each candidate's answered conditions are a sorted run of condition
// indices (4 bytes an answer); In gives the AnsweredSet of some contexts
// without copying them.
type StudyAnswers struct {
	pairOf    map[[2]string]int32 // (context, candidate) → pair
	pairs     []scorePair
	condOf    map[[3]string]int32 // (probe, wording, run) → condition
	conds     []scoreCond
	byContext map[string][]int32 // context → its pairs
	start     []int32            // the answers of pair p are cond[start[p]:start[p+1]]
	cond      []int32            // sorted within each pair
}

// SnapshotAnswers reads the answered coordinates of judge's study on
// dataset under bankHash from the study's score snapshot. It returns nil
// (and no error) when the workspace has no current snapshot of the study
// (none written, another generation, or one that does not decode): the
// caller then reads the requests (AnsweredIn). A workspace without the
// study has no answers: an empty, non-nil set.
func (s *Store) SnapshotAnswers(ctx context.Context, judge, dataset, bankHash string) (*StudyAnswers, error) {
	r, err := s.ReadStudy(ctx, dataset, judge, bankHash, false)
	if err != nil {
		return nil, err
	}
	return r.Answers(), nil
}

// answersOf indexes the answered records of sr, one study's.
func answersOf(sr *studyRows) *StudyAnswers {
	// sr's index of its pairs is the same map: shared, not rebuilt.
	a := &StudyAnswers{pairOf: sr.pairOf, pairs: sr.pairs,
		condOf: make(map[[3]string]int32, len(sr.conds)), conds: sr.conds, byContext: map[string][]int32{}}
	for i, p := range sr.pairs {
		a.byContext[p.context] = append(a.byContext[p.context], int32(i))
	}
	for i, c := range sr.conds {
		a.condOf[[3]string{c.probe, c.wording, c.run}] = int32(i)
	}
	// A counting sort of the records by pair.
	a.start = make([]int32, len(sr.pairs)+1)
	n := 0
	for i := range sr.recs.len() {
		if r := sr.recs.at(i); r.answered() {
			a.start[r.pair+1]++
			n++
		}
	}
	for p := range sr.pairs {
		a.start[p+1] += a.start[p]
	}
	a.cond = make([]int32, n)
	next := slices.Clone(a.start[:len(sr.pairs)])
	for i := range sr.recs.len() {
		if r := sr.recs.at(i); r.answered() {
			a.cond[next[r.pair]] = r.condition()
			next[r.pair]++
		}
	}
	// A study's requests are unique by coordinates, so each pair's
	// conditions are distinct once sorted.
	for p := range sr.pairs {
		slices.Sort(a.cond[a.start[p]:a.start[p+1]])
	}
	return a
}

// Len is the number of answered coordinates of the study.
func (a *StudyAnswers) Len() int { return len(a.cond) }

// In is the AnsweredSet of the study's answers in contexts: what
// AnsweredIn reads for them.
func (a *StudyAnswers) In(contexts []string) AnsweredSet {
	v := &answeredView{a: a, contexts: make(map[string]bool, len(contexts))}
	for _, c := range contexts {
		if v.contexts[c] {
			continue
		}
		v.contexts[c] = true
		for _, p := range a.byContext[c] {
			v.pairs = append(v.pairs, p)
			v.n += int(a.start[p+1] - a.start[p])
		}
	}
	return AnsweredSet{view: v}
}

// answeredView is an AnsweredSet over some contexts of a StudyAnswers.
type answeredView struct {
	a        *StudyAnswers
	contexts map[string]bool
	pairs    []int32
	n        int
	// The last pair asked about: a planner asks about every condition of
	// a candidate in turn.
	lastKey  [2]string
	lastPair int32
	lastOK   bool // lastKey is a pair of the study in contexts
	lastSet  bool // lastKey was asked about
	// The conditions asked about, in the order asked since the pair
	// changed, with their indices (-1: none of the study's): a planner
	// asks about the same conditions in the same order for every
	// candidate, so the k-th question about a candidate is most often the
	// k-th about the one before, and three string comparisons answer it
	// instead of hashing the three strings.
	asked []askedCond
	k     int
}

type askedCond struct {
	key  [3]string
	cond int32
}

// maxAsked bounds answeredView.asked.
const maxAsked = 1 << 12

func (v *answeredView) has(context, candidate, probe, wording, run string) bool {
	if key := [2]string{context, candidate}; !v.lastSet || key != v.lastKey {
		v.lastKey, v.lastSet = key, true
		v.lastPair, v.lastOK = v.a.pairOf[key]
		v.lastOK = v.lastOK && v.contexts[context]
		v.k = 0
	}
	if !v.lastOK {
		return false
	}
	c := v.condOf([3]string{probe, wording, run})
	if c < 0 {
		return false
	}
	_, found := slices.BinarySearch(v.a.cond[v.a.start[v.lastPair]:v.a.start[v.lastPair+1]], c)
	return found
}

// condOf is the index of a condition of the study, -1 when it has none.
func (v *answeredView) condOf(key [3]string) int32 {
	k := v.k
	v.k++
	if k < len(v.asked) && v.asked[k].key == key {
		return v.asked[k].cond
	}
	c, ok := v.a.condOf[key]
	if !ok {
		c = -1
	}
	switch {
	case k < len(v.asked):
		v.asked[k] = askedCond{key, c}
	case k == len(v.asked) && k < maxAsked:
		v.asked = append(v.asked, askedCond{key, c})
	}
	return c
}

func (v *answeredView) each(f func(context, candidate, probe, wording, run string)) {
	for _, p := range v.pairs {
		pr := &v.a.pairs[p]
		for _, c := range v.a.cond[v.a.start[p]:v.a.start[p+1]] {
			cd := &v.a.conds[c]
			f(pr.context, pr.candidate, cd.probe, cd.wording, cd.run)
		}
	}
}
