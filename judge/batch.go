package judge

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/banks"
)

// CyclicOrders returns k presentation orders of n candidates: order r is
// the identity rotated to start at candidate ⌊r·n/k⌋, so the k starts are
// spread evenly and, for k = n, every candidate takes every position once
// (paper §B.6 uses cyclic shifts). The orders depend only on (n, k), so the
// baseline and every probe see the same ones. k is clamped to [1, n].
func CyclicOrders(n, k int) [][]int {
	if n <= 0 {
		return nil
	}
	k = max(1, min(k, n))
	out := make([][]int, k)
	for r := range k {
		start := r * n / k
		o := make([]int, n)
		for i := range o {
			o[i] = (start + i) % n
		}
		out[r] = o
	}
	return out
}

// BatchScores is the outcome of ScoreBatch over k presentation orders.
type BatchScores struct {
	Orders [][]int // Orders[r][pos] = candidate index shown at pos
	// Scores[i] is candidate i's mean over the orders where it scored;
	// Scored[i] counts those orders (0: no score, Scores[i] is NaN).
	Scores []float64
	Scored []int
	// PerOrder[r][i] is candidate i's score in order r (NaN when missing).
	PerOrder [][]float64
	Results  []Result // the raw result of each order's call
	Errs     []error  // each order's error (nil when all items scored)
}

// ScoreBatch scores n candidates of one context with one call per
// presentation order (batched pointwise scoring, paper §B.6). render must
// return the request that shows candidate order[pos] at position pos, with
// BatchIDs in that order; scores are aligned back by those IDs (never by
// reply position). The k orders are CyclicOrders(n, k).
//
// A call whose error StopsRun (auth, config, canceled) ends ScoreBatch with
// that error; other failures are kept in Errs and leave NaN cells.
func ScoreBatch(ctx context.Context, j Judge, n, k int, render func(order []int) (banks.Request, error)) (BatchScores, error) {
	bs := BatchScores{Orders: CyclicOrders(n, k), Scores: make([]float64, n), Scored: make([]int, n)}
	for _, order := range bs.Orders {
		req, err := render(order)
		if err != nil {
			return bs, fmt.Errorf("judge: rendering a batch: %w", err)
		}
		if len(req.BatchIDs) != len(order) {
			return bs, fmt.Errorf("judge: batch request has %d ids for %d candidates", len(req.BatchIDs), len(order))
		}
		res, err := j.Score(ctx, req)
		bs.Results = append(bs.Results, res)
		bs.Errs = append(bs.Errs, err)
		if err != nil && KindOf(err).StopsRun() {
			return bs, err
		}
		row := make([]float64, n)
		for i := range row {
			row[i] = math.NaN()
		}
		byID := make(map[string]Item, len(res.Items))
		for _, it := range res.Items {
			byID[it.ID] = it
		}
		for pos, ci := range order {
			if it, ok := byID[req.BatchIDs[pos]]; ok && it.HasScore {
				row[ci] = it.Score
			}
		}
		bs.PerOrder = append(bs.PerOrder, row)
	}
	for i := range bs.Scores {
		var sum float64
		for _, row := range bs.PerOrder {
			if !math.IsNaN(row[i]) {
				sum += row[i]
				bs.Scored[i]++
			}
		}
		if bs.Scored[i] > 0 {
			bs.Scores[i] = sum / float64(bs.Scored[i])
		} else {
			bs.Scores[i] = math.NaN()
		}
	}
	return bs, nil
}

// Located is one candidate's score read from a batched reply.
type Located struct {
	Value float64
	Span  Span
	Found bool
	lit   string // the JSON number literal, for the exact integer check
}

// reKeyPos is a JSON key that names a position: optional non-digits, then
// the 1-based position ("Summary 2", "candidate_2", "2").
var reKeyPos = regexp.MustCompile(`^\D*?(\d+)$`)

// BatchKeys are the keys a batched reply is read by, in presentation
// order: the labels the judge saw (Request.BatchLabels, "1", "2", …) when
// set, else the candidate ids.
func BatchKeys(req banks.Request) []string {
	if len(req.BatchLabels) == len(req.BatchIDs) && len(req.BatchLabels) > 0 {
		return req.BatchLabels
	}
	return req.BatchIDs
}

// LocateBatch reads one score per candidate from a batched reply. keys are
// the labels the judge saw, in presentation order (BatchKeys). Scores are
// read only from JSON, never from prose. The score map is, by preference:
//
//   - the "scores" member of a top-level JSON object of the reply (the
//     requested {"scores": {"1": 7, …}}; top-level as in LocateScore, so
//     also in a code fence or prose); two such members make the reply
//     ambiguous and nothing is read;
//   - else the one top-level JSON object of the reply, when there is
//     exactly one ({"1": 7, "2": 5});
//   - else the whole reply (or the whole body of one code fence) when it
//     is a JSON array.
//
// In an object map, a candidate's score is the member named by its label,
// else the member whose key ends in its 1-based position ("Summary 2": 5).
// In an array (also "scores": [...]) it is the element {"id": LABEL,
// "score": n} (the id may also be "candidate", "label" or "name"). A value
// counts only as a JSON number or a string holding exactly one; a key
// stated twice with different numbers leaves its candidate unfound. Values
// are not range-checked.
func LocateBatch(text string, keys []string) []Located {
	out := make([]Located, len(keys))
	m := batchMap(text)
	if m == nil {
		return out
	}
	const ambiguous = -1 // a Located.Span.Start marking a key with conflicting numbers
	put := func(into map[string]Located, key string, v *jval) {
		lit, sp, ok := v.number(text)
		if !ok {
			return
		}
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil || math.IsInf(f, 0) {
			return
		}
		l := Located{Value: f, Span: sp, Found: true, lit: lit}
		if old, seen := into[key]; seen && (old.Span.Start == ambiguous || !sameNumber(old.lit, lit)) {
			l = Located{Span: Span{ambiguous, ambiguous}}
		}
		into[key] = l
	}
	byKey, byPos := map[string]Located{}, map[string]Located{}
	switch m.kind {
	case '{':
		for k, key := range m.keys {
			key = strings.TrimSpace(key)
			put(byKey, key, m.vals[k])
			if pm := reKeyPos.FindStringSubmatch(key); pm != nil {
				if p, err := strconv.Atoi(pm[1]); err == nil {
					put(byPos, strconv.Itoa(p), m.vals[k])
				}
			}
		}
	case '[':
		for _, e := range m.vals {
			if e.kind != '{' {
				continue
			}
			var id string
			var score *jval
			for k, key := range e.keys {
				switch strings.ToLower(key) {
				case "id", "candidate", "label", "name":
					if v := e.vals[k]; v.kind == 's' {
						id = strings.TrimSpace(v.str)
					} else if v.kind == 'n' {
						id = v.num
					}
				case "score":
					score = e.vals[k]
				}
			}
			if id != "" && score != nil {
				put(byKey, id, score)
			}
		}
	}
	for i, key := range keys {
		l, ok := byKey[key]
		if !ok {
			l = byPos[strconv.Itoa(i+1)]
		}
		if l.Found {
			out[i] = l
		}
	}
	return out
}

// batchMap is the JSON value a batched reply's scores are read from (see
// LocateBatch), or nil.
func batchMap(text string) *jval {
	objs := topObjects(text)
	var scores []*jval
	for _, o := range objs {
		for k, key := range o.keys {
			if key == "scores" {
				scores = append(scores, o.vals[k])
			}
		}
	}
	switch {
	case len(scores) == 1:
		return scores[0]
	case len(scores) > 1:
		return nil
	case len(objs) == 1:
		return objs[0]
	}
	if v, ok := wholeJSON(text); ok && v.kind == '[' {
		return v
	}
	return nil
}

// ParseBatch reads integer scores from a batched reply by keys (see
// LocateBatch) and returns one Item per candidate in presentation order,
// carrying ids[i], each range-checked like ParseScore.
func ParseBatch(text string, keys, ids []string, sc banks.Scale) []Item {
	locs := LocateBatch(text, keys)
	items := make([]Item, len(ids))
	refused := IsRefusal(text)
	for i, l := range locs {
		items[i].ID = ids[i]
		if !l.Found {
			kind := KindUnparseable
			if refused {
				kind = KindRefusal
			}
			items[i].Err = &Error{Kind: kind, Msg: fmt.Sprintf("no score for candidate %q (label %q) in reply %q", ids[i], keys[i], clip(text))}
			continue
		}
		v, err := checkScore(l.lit, l.Value, sc)
		if err != nil {
			e := err.(*Error)
			e.Msg = fmt.Sprintf("candidate %q: %s", ids[i], e.Msg)
			items[i].Err = e
			continue
		}
		items[i].Score, items[i].HasScore = float64(v), true
	}
	return items
}
