package store

import (
	"cmp"
	"context"
	"slices"

	"github.com/prism-eval/prism/model"
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
	score     []float64          // cond's scores (NaN: missing), nil unless read with rows
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

// answersOf indexes the answered records of sr, one study's, their
// conditions numbered by rank (rankConds): each pair's run of condition
// numbers is then in ScanFitInput's order too. With scores it keeps each
// answer's score beside its condition (NaN: missing), for
// ScanCandidates.
func answersOf(sr *studyRows, scores bool) *StudyAnswers {
	sr.rankConds()
	// sr's index of its pairs is the same map: shared, not rebuilt.
	a := &StudyAnswers{pairOf: sr.pairOf, pairs: sr.pairs,
		condOf: make(map[[3]string]int32, len(sr.conds)), conds: make([]scoreCond, len(sr.conds)), byContext: map[string][]int32{}}
	for i, p := range sr.pairs {
		a.byContext[p.context] = append(a.byContext[p.context], int32(i))
	}
	for _, c := range sr.conds {
		a.conds[c.rank] = c
		a.condOf[[3]string{c.probe, c.wording, c.run}] = c.rank
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
	if scores {
		a.score = make([]float64, n)
	}
	next := slices.Clone(a.start[:len(sr.pairs)])
	for i := range sr.recs.len() {
		r := sr.recs.at(i)
		if !r.answered() {
			continue
		}
		at := next[r.pair]
		next[r.pair]++
		a.cond[at] = sr.conds[r.condition()].rank
		if scores {
			a.score[at] = r.value()
		}
	}
	// A study's requests are unique by coordinates, so each pair's
	// conditions are distinct once sorted.
	var ps pairSorter
	for p := range sr.pairs {
		lo, hi := a.start[p], a.start[p+1]
		if scores {
			ps.sort(a.cond[lo:hi], a.score[lo:hi], len(a.conds))
		} else {
			slices.Sort(a.cond[lo:hi])
		}
	}
	return a
}

// pairSorter sorts a pair's answers by condition, their scores with
// them, reusing its buffers from pair to pair.
type pairSorter struct {
	byCond []int32 // by condition: the answer's index, -1 between uses
	idx    []int32
	cond   []int32
	score  []float64
}

// sort sorts cond (numbers below conds) and score by cond: in one pass
// through a table of the conditions when it would be mostly full and
// the conditions are distinct, else by sorting.
func (s *pairSorter) sort(cond []int32, score []float64, conds int) {
	s.cond, s.score = append(s.cond[:0], cond...), append(s.score[:0], score...)
	if conds <= 4*len(cond) && s.place(cond, score, conds) {
		return
	}
	s.idx = s.idx[:0]
	for i := range cond {
		s.idx = append(s.idx, int32(i))
	}
	slices.SortStableFunc(s.idx, func(x, y int32) int { return cmp.Compare(s.cond[x], s.cond[y]) })
	for k, i := range s.idx {
		cond[k], score[k] = s.cond[i], s.score[i]
	}
}

// place writes s.cond and s.score to cond and score in condition order
// through the table; false, writing nothing, when two share a condition.
func (s *pairSorter) place(cond []int32, score []float64, conds int) bool {
	if len(s.byCond) < conds {
		s.byCond = make([]int32, conds)
		for i := range s.byCond {
			s.byCond[i] = -1
		}
	}
	ok := true
	for i, c := range s.cond {
		if s.byCond[c] >= 0 {
			ok = false
			break
		}
		s.byCond[c] = int32(i)
	}
	k := 0
	for c, i := range s.byCond[:conds] {
		if i >= 0 {
			if ok {
				cond[k], score[k] = s.cond[i], s.score[i]
				k++
			}
			s.byCond[c] = -1
		}
	}
	return ok
}

// eachInDataset calls fn with the answers of each candidate of d, in d's
// order, which is ScanFitInput's when every candidate the study answered
// is one of d's: then ok. Else, and for answers read without their
// scores, it calls nothing. fn is given one CandidateScores rewritten for
// each, whose slices are a's: fn must not change them.
func (a *StudyAnswers) eachInDataset(d *model.Dataset, fn func(*model.CandidateScores) error) (ok bool, err error) {
	if a == nil || a.score == nil || len(a.cond) == 0 {
		return false, nil
	}
	order := make([]int32, 0, len(a.pairs))
	for _, c := range d.Contexts {
		for _, k := range c.Candidates {
			if p, ok := a.pairOf[[2]string{c.ID, k.ID}]; ok {
				order = append(order, p)
			}
		}
	}
	if len(order) != len(a.pairs) { // a dataset's ids are unique
		return false, nil
	}
	cs := model.CandidateScores{Conds: conditionsOf(a.conds)}
	for _, p := range order {
		lo, hi := a.start[p], a.start[p+1]
		if lo == hi {
			continue
		}
		cs.Context, cs.Candidate = a.pairs[p].context, a.pairs[p].candidate
		cs.Cond, cs.Score = a.cond[lo:hi:hi], a.score[lo:hi:hi]
		if err := fn(&cs); err != nil {
			return true, err
		}
	}
	return true, nil
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
