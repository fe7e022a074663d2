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
}

var (
	reKeyNumber = regexp.MustCompile(`["']([^"'\n]{1,200})["']\s*:\s*["']?\s*([-+]?\d+(?:\.\d+)?)`)
	reObject    = regexp.MustCompile(`\{[^{}]*\}`)
	reIDField   = regexp.MustCompile(`(?i)["'](?:id|candidate|label|name)["']\s*:\s*["']?([^"',}\n]+)["']?`)
	reTrailNum  = regexp.MustCompile(`(\d+)\s*$`)
)

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
// the labels the judge saw, in presentation order (BatchKeys). A
// candidate's score is, by preference: the value of a JSON key equal to its
// label ({"scores": {"3": 7, …}}); an object {"id": "3", "score": 7} in an
// array; a key whose trailing number is its 1-based position ("Summary 2":
// 5). The last occurrence wins. Values are not range-checked.
func LocateBatch(text string, keys []string) []Located {
	out := make([]Located, len(keys))
	byKey := map[string]Located{}
	for _, m := range reKeyNumber.FindAllStringSubmatchIndex(text, -1) {
		key := strings.TrimSpace(text[m[2]:m[3]])
		if v, err := strconv.ParseFloat(text[m[4]:m[5]], 64); err == nil && !math.IsInf(v, 0) {
			byKey[key] = Located{Value: v, Span: Span{m[4], m[5]}, Found: true}
		}
	}
	byObj := map[string]Located{}
	for _, om := range reObject.FindAllStringIndex(text, -1) {
		obj := text[om[0]:om[1]]
		idm := reIDField.FindStringSubmatch(obj)
		sm := reJSONScore.FindStringSubmatchIndex(obj)
		if idm == nil || sm == nil {
			continue
		}
		if v, err := strconv.ParseFloat(obj[sm[2]:sm[3]], 64); err == nil && !math.IsInf(v, 0) {
			byObj[strings.TrimSpace(idm[1])] = Located{Value: v, Span: Span{om[0] + sm[2], om[0] + sm[3]}, Found: true}
		}
	}
	byPos := map[int]Located{}
	for key, l := range byKey {
		if m := reTrailNum.FindStringSubmatch(key); m != nil {
			if p, err := strconv.Atoi(m[1]); err == nil {
				if old, ok := byPos[p]; !ok || l.Span.Start > old.Span.Start {
					byPos[p] = l
				}
			}
		}
	}
	for i, id := range keys {
		if l, ok := byKey[id]; ok {
			out[i] = l
		} else if l, ok := byObj[id]; ok {
			out[i] = l
		} else if l, ok := byPos[i+1]; ok {
			out[i] = l
		}
	}
	return out
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
		v, err := checkScore(l.Value, sc)
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
