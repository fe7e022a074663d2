package judge

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/prism-eval/prism/banks"
)

func TestCyclicOrders(t *testing.T) {
	cases := []struct {
		n, k int
		want [][]int
	}{
		{3, 3, [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}}},
		{4, 2, [][]int{{0, 1, 2, 3}, {2, 3, 0, 1}}}, // starts ⌊r·4/2⌋ = 0, 2
		{5, 1, [][]int{{0, 1, 2, 3, 4}}},
		{2, 9, [][]int{{0, 1}, {1, 0}}}, // k clamped to n
		{0, 3, nil},
	}
	for _, c := range cases {
		if got := CyclicOrders(c.n, c.k); !reflect.DeepEqual(got, c.want) {
			t.Errorf("CyclicOrders(%d, %d) = %v, want %v", c.n, c.k, got, c.want)
		}
	}
	// With k = n every candidate takes every position exactly once.
	n := 7
	seen := make([][]int, n)
	for i := range seen {
		seen[i] = make([]int, n)
	}
	for _, o := range CyclicOrders(n, n) {
		for pos, ci := range o {
			seen[ci][pos]++
		}
	}
	for ci := range seen {
		for pos, c := range seen[ci] {
			if c != 1 {
				t.Fatalf("candidate %d at position %d %d times", ci, pos, c)
			}
		}
	}
}

// positionJudge scores candidate "cI" as I + bias(position), bias = +1
// first, −1 last: averaging over all cyclic orders cancels it exactly.
type positionJudge struct{ fail map[int]bool }

func (positionJudge) Name() string { return "position" }

func (p positionJudge) Score(_ context.Context, req banks.Request) (Result, error) {
	s := Sample{}
	n := len(req.BatchIDs)
	for pos, id := range req.BatchIDs {
		var v int
		fmt.Sscanf(id, "c%d", &v)
		it := Item{ID: id, Score: float64(v) + 1 - 2*float64(pos)/float64(n-1), HasScore: true}
		if p.fail[v] && pos == 0 {
			it = Item{ID: id, Err: &Error{Kind: KindUnparseable}}
		}
		s.Items = append(s.Items, it)
	}
	r := Result{Samples: []Sample{s}}
	return r, r.Finish(req.BatchIDs)
}

func render(n int) func(order []int) (banks.Request, error) {
	return func(order []int) (banks.Request, error) {
		r := banks.Request{Scale: banks.Scale{Min: 0, Max: 100}}
		for _, i := range order {
			r.BatchIDs = append(r.BatchIDs, fmt.Sprintf("c%d", i))
			r.BatchTexts = append(r.BatchTexts, "text")
		}
		return r, nil
	}
}

func TestScoreBatchAlignsAndAverages(t *testing.T) {
	const n = 5
	bs, err := ScoreBatch(context.Background(), positionJudge{}, n, n, render(n))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if math.Abs(bs.Scores[i]-float64(i)) > 1e-12 || bs.Scored[i] != n {
			t.Errorf("candidate %d: %v over %d orders, want %d over %d", i, bs.Scores[i], bs.Scored[i], i, n)
		}
	}
	// Order 1 shows c1 first: its score there is 1 + 1.
	if bs.PerOrder[1][1] != 2 {
		t.Errorf("PerOrder[1][1] = %v, want 2", bs.PerOrder[1][1])
	}
	// A candidate that fails when shown first is averaged over the rest.
	bs, err = ScoreBatch(context.Background(), positionJudge{fail: map[int]bool{2: true}}, n, n, render(n))
	if err != nil {
		t.Fatal(err)
	}
	if bs.Scored[2] != n-1 || !math.IsNaN(bs.PerOrder[2][2]) || bs.Errs[2] == nil {
		t.Errorf("failed cell: scored %d, cell %v, err %v", bs.Scored[2], bs.PerOrder[2][2], bs.Errs[2])
	}
}

type authFail struct{ calls int }

func (*authFail) Name() string { return "auth" }
func (a *authFail) Score(context.Context, banks.Request) (Result, error) {
	a.calls++
	e := &Error{Kind: KindAuth}
	return Result{Err: e}, e
}

func TestScoreBatchStopsOnAuth(t *testing.T) {
	a := &authFail{}
	_, err := ScoreBatch(context.Background(), a, 4, 4, render(4))
	if KindOf(err) != KindAuth || a.calls != 1 {
		t.Errorf("err %v after %d calls; want auth after 1", err, a.calls)
	}
}
