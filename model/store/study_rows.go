package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/prism-eval/prism/model"
)

// studyRows collects a study's answers compactly: each row names its
// candidate (pair) and condition by index into shared tables.
type studyRows struct {
	pos    datasetPositions
	pairs  []scorePair
	pairOf map[[2]string]int32
	conds  []scoreCond
	condOf map[[4]string]int32
	recs   recList
	ids    []int64 // recs' request ids, kept only where answers are matched by id (scanAnswers)
	byRank []int32 // placeByRank's table, by condition rank: -1 between uses
}

type scorePair struct {
	context, candidate string
	bucket             int32 // datasetPositions.bucket
}

type scoreCond struct {
	probe, wording, run, bank string
	rank                      int32 // place in (probe, wording, run, bank) byte order
}

// scoreRec is one request of a study in 16 bytes: a fit holds one per
// answer while it builds its design (ScanRowBytes), and on this VM every
// page of it costs a page fault of 14 µs or more (docs/performance.md,
// "Page faults and the workspace fit").
type scoreRec struct {
	pair  int32
	cond  uint32 // the condition's index below recAnswered and recMissing
	score float64
}

const (
	recAnswered = 1 << 31
	recMissing  = 1 << 30
	recCond     = recMissing - 1 // a study has far fewer conditions
)

func (r *scoreRec) condition() int32 { return int32(r.cond & recCond) }
func (r *scoreRec) answered() bool   { return r.cond&recAnswered != 0 }
func (r *scoreRec) missing() bool    { return r.cond&recMissing != 0 }

// value is r's score, NaN when the answer has none (ScoreRow.Missing).
func (r *scoreRec) value() float64 {
	if r.missing() {
		return math.NaN()
	}
	return r.score
}

// answer marks r answered, missing when the answer has no score.
func (r *scoreRec) answer(score float64, missing bool) {
	r.cond = r.cond&recCond | recAnswered
	if missing {
		r.cond |= recMissing
	}
	r.score = score
}

func newStudyRows(pos datasetPositions) *studyRows {
	return &studyRows{pos: pos, pairOf: map[[2]string]int32{}, condOf: map[[4]string]int32{}}
}

func (sr *studyRows) pair(context, candidate string) int32 {
	key := [2]string{context, candidate}
	i, ok := sr.pairOf[key]
	if !ok {
		i = int32(len(sr.pairs))
		sr.pairs = append(sr.pairs, scorePair{context, candidate, sr.pos.bucket(context, candidate)})
		sr.pairOf[key] = i
	}
	return i
}

func (sr *studyRows) cond(probe, wording, run, bank string) int32 {
	key := [4]string{probe, wording, run, bank}
	i, ok := sr.condOf[key]
	if !ok {
		if len(sr.conds) == recCond {
			// 2^30 distinct conditions would take tens of GB of names.
			panic("store: a study with 2^30 conditions")
		}
		i = int32(len(sr.conds))
		sr.conds = append(sr.conds, scoreCond{probe: probe, wording: wording, run: run, bank: bank})
		sr.condOf[key] = i
	}
	return i
}

// add adds an unanswered request and returns it.
func (sr *studyRows) add(pair, cond int32) *scoreRec {
	return sr.recs.add(scoreRec{pair: pair, cond: uint32(cond)})
}

// addID adds an unanswered request whose answer scanAnswers finds by id.
func (sr *studyRows) addID(id int64, pair, cond int32) {
	sr.add(pair, cond)
	sr.ids = append(sr.ids, id)
}

// ordered returns the rows in the order Scores documents (each).
func (sr *studyRows) ordered() []model.ScoreRow {
	var out []model.ScoreRow
	_ = sr.each(func(n int) { out = make([]model.ScoreRow, 0, n) }, func(r *model.ScoreRow) error {
		out = append(out, *r)
		return nil
	})
	return out
}

// each calls fn with the rows in the order Scores documents, after size
// with their count: by bucket (a counting sort), then within a bucket by
// context and candidate id (which differ only in the buckets of ids the
// dataset lacks) and the condition's rank. fn is given one ScoreRow,
// rewritten for each row, so that no slice of rows is made; an error
// from fn ends the walk.
func (sr *studyRows) each(size func(n int), fn func(*model.ScoreRow) error) error {
	order := sr.order()
	if size != nil {
		size(len(order))
	}
	var row model.ScoreRow
	for _, ri := range order {
		r := sr.recs.at(int(ri))
		p, c := &sr.pairs[r.pair], &sr.conds[r.condition()]
		row = model.ScoreRow{Context: p.context, Candidate: p.candidate, Probe: c.probe, Wording: c.wording, Run: c.run,
			Score: r.value(), Missing: r.missing()}
		if err := fn(&row); err != nil {
			return err
		}
	}
	return nil
}

// order is the indices of the answered records in each's order.
func (sr *studyRows) order() []int32 {
	sr.rankConds()
	return sr.byBucket()
}

// eachCandidate calls fn with the rows in each's order a candidate at a
// time (each's order holds a candidate's rows together), one
// CandidateScores rewritten for each; its conditions are sr.conds.
func (sr *studyRows) eachCandidate(fn func(*model.CandidateScores) error) error {
	order := sr.order()
	c := model.CandidateScores{Conds: conditionsOf(sr.conds)}
	for lo := 0; lo < len(order); {
		pair := sr.recs.at(int(order[lo])).pair
		c.Cond, c.Score = c.Cond[:0], c.Score[:0]
		hi := lo
		for ; hi < len(order); hi++ {
			r := sr.recs.at(int(order[hi]))
			if r.pair != pair {
				break
			}
			c.Cond, c.Score = append(c.Cond, r.condition()), append(c.Score, r.value())
		}
		p := &sr.pairs[pair]
		c.Context, c.Candidate = p.context, p.candidate
		if err := fn(&c); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// conditionsOf is the table of conds a CandidateScores indexes.
func conditionsOf(conds []scoreCond) []model.Condition {
	out := make([]model.Condition, len(conds))
	for i, k := range conds {
		out[i] = model.Condition{Probe: k.probe, Wording: k.wording, Run: k.run}
	}
	return out
}

// rankConds sets each condition's rank: its place in (probe, wording,
// run, bank) byte order.
func (sr *studyRows) rankConds() {
	byName := make([]int32, len(sr.conds))
	for i := range byName {
		byName[i] = int32(i)
	}
	slices.SortFunc(byName, func(a, b int32) int {
		x, y := &sr.conds[a], &sr.conds[b]
		return cmp.Or(strings.Compare(x.probe, y.probe), strings.Compare(x.wording, y.wording),
			strings.Compare(x.run, y.run), strings.Compare(x.bank, y.bank))
	})
	for r, i := range byName {
		sr.conds[i].rank = int32(r)
	}
}

// byBucket is the indices of the answered records in each's order: a
// counting sort by bucket, then each bucket sorted (sortBucket).
func (sr *studyRows) byBucket() []int32 {
	start := make([]int, sr.pos.buckets+1)
	for i := range sr.recs.len() {
		if r := sr.recs.at(i); r.answered() {
			start[sr.pairs[r.pair].bucket+1]++
		}
	}
	for b := 1; b < len(start); b++ {
		start[b] += start[b-1]
	}
	order := make([]int32, start[len(start)-1])
	next := slices.Clone(start[:len(start)-1])
	for i := range sr.recs.len() {
		r := sr.recs.at(i)
		if !r.answered() {
			continue
		}
		b := sr.pairs[r.pair].bucket
		order[next[b]] = int32(i)
		next[b]++
	}
	for b := 0; b < sr.pos.buckets; b++ {
		if seg := order[start[b]:start[b+1]]; len(seg) >= 2 {
			sr.sortBucket(int32(b), seg)
		}
	}
	return order
}

// sortBucket sorts the records of bucket b by context and candidate id
// (which differ only in the buckets of ids the dataset lacks), then by
// the condition's rank.
func (sr *studyRows) sortBucket(b int32, seg []int32) {
	if sr.pos.known(b) {
		// One candidate: its conditions are distinct, so their ranks
		// place them (sorting each candidate's was a tenth of prism
		// score on a workspace).
		if !sr.placeByRank(seg) {
			slices.SortFunc(seg, func(a, b int32) int {
				return cmp.Compare(sr.conds[sr.recs.at(int(a)).condition()].rank, sr.conds[sr.recs.at(int(b)).condition()].rank)
			})
		}
		return
	}
	slices.SortFunc(seg, func(a, b int32) int {
		x, y := sr.recs.at(int(a)), sr.recs.at(int(b))
		if x.pair != y.pair {
			p, q := &sr.pairs[x.pair], &sr.pairs[y.pair]
			if c := strings.Compare(p.context, q.context); c != 0 {
				return c
			}
			if c := strings.Compare(p.candidate, q.candidate); c != 0 {
				return c
			}
		}
		return cmp.Compare(sr.conds[x.condition()].rank, sr.conds[y.condition()].rank)
	})
}

// placeByRank orders seg, records of distinct conditions, by their
// conditions' ranks in one pass through a table of the study's
// conditions; false, seg untouched, when the table would be mostly empty
// or two records share a rank.
func (sr *studyRows) placeByRank(seg []int32) bool {
	if len(sr.conds) > 4*len(seg) {
		return false
	}
	if len(sr.byRank) != len(sr.conds) {
		sr.byRank = make([]int32, len(sr.conds))
		for i := range sr.byRank {
			sr.byRank[i] = -1
		}
	}
	placed := 0
	for _, ri := range seg {
		r := sr.conds[sr.recs.at(int(ri)).condition()].rank
		if sr.byRank[r] >= 0 {
			break
		}
		sr.byRank[r] = ri
		placed++
	}
	ok := placed == len(seg)
	k := 0
	for r, ri := range sr.byRank {
		if ri >= 0 {
			if ok {
				seg[k] = ri
				k++
			}
			sr.byRank[r] = -1
		}
	}
	return ok
}

// datasetPositions number the places of a dataset's candidates in file
// order, as buckets of Scores' counting sort: bucket 0 holds the rows of
// contexts the dataset lacks; each context then has a bucket for the rows
// of candidates it lacks, followed by one per candidate, in file order.
// Buckets compare as (context position, candidate position) with −1 for
// an id the dataset lacks, as SQL sorts NULL first.
type datasetPositions struct {
	ctx     map[string]int32    // context id → its bucket of unknown candidates
	cand    map[[2]string]int32 // (context, candidate) → its bucket
	isCand  []bool              // per bucket: a candidate of the dataset
	buckets int
}

// bucket returns the bucket of a context and candidate.
func (p datasetPositions) bucket(context, candidate string) int32 {
	if b, ok := p.cand[[2]string{context, candidate}]; ok {
		return b
	}
	return p.ctx[context] // 0 when the context is absent too
}

// known says whether bucket b is one candidate's.
func (p datasetPositions) known(b int32) bool { return p.isCand[b] }

// positions reads the places of dataset's contexts and candidates.
func (s *Store) positions(ctx context.Context, dataset string) (datasetPositions, error) {
	layout, _, err := s.layoutOf(ctx, dataset)
	if err != nil {
		return datasetPositions{}, err
	}
	return positionsOf(layout), nil // no dataset: every row in bucket 0
}

// positionsOf numbers the places of a dataset's layout.
func positionsOf(layout []layoutContext) datasetPositions {
	p := datasetPositions{ctx: map[string]int32{}, cand: map[[2]string]int32{}, isCand: []bool{false}}
	for _, c := range layout {
		p.ctx[c.id] = int32(len(p.isCand))
		p.isCand = append(p.isCand, false)
		for _, k := range c.candidates {
			p.cand[[2]string{c.id, k.id}] = int32(len(p.isCand))
			p.isCand = append(p.isCand, true)
		}
	}
	p.buckets = len(p.isCand)
	return p
}

// recList holds a study's records (scoreRec) in pages of recPage: a
// workspace fit holds one per answer, and on this VM each new page of
// memory faults for tens of µs (docs/performance.md, "Page faults and the
// workspace fit"). Pages let the records be added as a snapshot is read,
// part by part, without knowing their count first, never copying more
// than one page to grow, and leave at most one page partly empty. Every
// page but the last is full, so record i is in page i/recPage.
type recList struct {
	pages [][]scoreRec
	n     int
}

const (
	recPageBits = 16
	recPage     = 1 << recPageBits // records a page holds (1 MiB)
)

func (l *recList) len() int { return l.n }

// at returns record i, which must be below len.
func (l *recList) at(i int) *scoreRec {
	return &l.pages[i>>recPageBits][i&(recPage-1)]
}

// add appends r and returns it.
func (l *recList) add(r scoreRec) *scoreRec {
	if k := len(l.pages) - 1; k >= 0 && len(l.pages[k]) < cap(l.pages[k]) {
		l.pages[k] = append(l.pages[k], r)
		l.n++
		return &l.pages[k][len(l.pages[k])-1]
	}
	return l.grow(r)
}

// grow is add when the last page is full.
func (l *recList) grow(r scoreRec) *scoreRec {
	// A study's first page grows as it fills (most studies are small); a
	// full page is followed by a whole new one. The slices are made by
	// make, whose clearing the collector can preempt (slices.Grow clears
	// in one loop it cannot).
	switch {
	case len(l.pages) == 0:
		l.pages = append(l.pages, nil)
	case len(l.pages[len(l.pages)-1]) == recPage:
		l.pages = append(l.pages, make([]scoreRec, 0, recPage))
	}
	last := &l.pages[len(l.pages)-1]
	if len(*last) == cap(*last) {
		l.growLast(min(recPage, max(1024, 2*cap(*last))))
	}
	*last = append(*last, r)
	l.n++
	return &(*last)[len(*last)-1]
}

// reserve makes room for n more records in the last page when they fit
// in it, so that a study whose size is known grows its page once.
func (l *recList) reserve(n int) {
	if len(l.pages) == 0 {
		l.pages = append(l.pages, nil)
	}
	last := l.pages[len(l.pages)-1]
	if want := min(recPage, len(last)+n); cap(last) < want {
		l.growLast(want)
	}
}

// growLast moves the last page to one of capacity records (made by make,
// see add).
func (l *recList) growLast(capacity int) {
	last := &l.pages[len(l.pages)-1]
	grown := make([]scoreRec, len(*last), capacity)
	copy(grown, *last)
	*last = grown
}

// truncate drops the records from n on.
func (l *recList) truncate(n int) {
	if n >= l.n {
		return
	}
	full := n >> recPageBits
	if rest := n & (recPage - 1); rest > 0 {
		l.pages = l.pages[:full+1]
		l.pages[full] = l.pages[full][:rest]
	} else {
		clear(l.pages[full:])
		l.pages = l.pages[:full]
	}
	l.n = n
}

// A dataset's layout: its contexts and candidates by id in file order,
// with the candidates' human targets. Labels and Scores' positions read
// it, a fit once for both.
//
// Both it and Dataset read contexts and candidates in table order and put
// them in file order in Go (inFileOrder): ordering the join in SQL
// (ORDER BY c.pos, k.pos) sent every row through SQLite's sorter, with
// each context's source beside every candidate in Dataset's case, and the
// sorter spilled to temporary files (docs/performance.md, "Reading a
// dataset", "Page faults and the workspace fit").

type layoutContext struct {
	id         string
	candidates []layoutCandidate
}

type layoutCandidate struct {
	id    string
	human sql.NullFloat64
}

// placed is a context or candidate row as read, with what places it in
// the file: its position and row id, and a candidate's context's row id.
type placed[T any] struct {
	ctx, pos, row int64
	v             T
}

// inFileOrder returns the contexts of cs by position and gives each,
// through set, its candidates of ks by position; ties of position (which
// the importer never writes) go by row id. Every candidate's context must
// be among cs.
func inFileOrder[C, K any](cs []placed[C], ks []placed[K], set func(*C, []K)) []C {
	slices.SortFunc(cs, func(a, b placed[C]) int { return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(a.row, b.row)) })
	at := make(map[int64]int, len(cs)) // context row id → place
	for i := range cs {
		at[cs[i].row] = i
	}
	slices.SortFunc(ks, func(a, b placed[K]) int {
		return cmp.Or(cmp.Compare(at[a.ctx], at[b.ctx]), cmp.Compare(a.pos, b.pos), cmp.Compare(a.row, b.row))
	})
	out := make([]C, len(cs))
	for i := range cs {
		out[i] = cs[i].v
	}
	for lo := 0; lo < len(ks); {
		hi := lo + 1
		for hi < len(ks) && ks[hi].ctx == ks[lo].ctx {
			hi++
		}
		vs := make([]K, hi-lo)
		for i := lo; i < hi; i++ {
			vs[i-lo] = ks[i].v
		}
		set(&out[at[ks[lo].ctx]], vs)
		lo = hi
	}
	return out
}

// layoutOf reads the layout of the named dataset; ok is false when the
// workspace has no such dataset.
func (s *Store) layoutOf(ctx context.Context, dataset string) (layout []layoutContext, ok bool, err error) {
	var id int64
	err = s.r.QueryRowContext(ctx, "SELECT id FROM datasets WHERE name = ?", dataset).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	layout, err = s.datasetLayout(ctx, id)
	return layout, err == nil, err
}

// datasetLayout reads the layout of the dataset with row id dataset:
// the packed one (layout.go), else from the tables.
func (s *Store) datasetLayout(ctx context.Context, dataset int64) ([]layoutContext, error) {
	if s.version >= layoutVersion {
		if layout, ok, err := storedLayout(ctx, s.r, dataset); ok || err != nil {
			return layout, err
		}
	}
	return tableLayout(ctx, s.r, dataset)
}

// tableLayout reads the layout of the dataset with row id dataset from
// its contexts and candidates.
func tableLayout(ctx context.Context, q querier, dataset int64) ([]layoutContext, error) {
	var cs []placed[layoutContext]
	rows, err := q.QueryContext(ctx, "SELECT id, pos, ext_id FROM contexts WHERE dataset_id = ?", dataset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c placed[layoutContext]
		if err := rows.Scan(&c.row, &c.pos, &c.v.id); err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()

	var ks []placed[layoutCandidate]
	rows, err = q.QueryContext(ctx, `
		SELECT context_id, pos, id, ext_id, human FROM candidates
		WHERE context_id IN (SELECT id FROM contexts WHERE dataset_id = ?)`, dataset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k placed[layoutCandidate]
		if err := rows.Scan(&k.ctx, &k.pos, &k.row, &k.v.id, &k.v.human); err != nil {
			return nil, err
		}
		ks = append(ks, k)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return inFileOrder(cs, ks, func(c *layoutContext, ks []layoutCandidate) { c.candidates = ks }), nil
}
