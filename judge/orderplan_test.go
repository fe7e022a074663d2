package judge

import (
	"slices"
	"testing"
)

// The base order π below was computed independently with Python's hashlib:
// sorted(ids, key=lambda c: sha256(("7\x00d1\x00" + c).encode()).digest())
// gives b, d, c, a.
func TestOrderPlanHandComputed(t *testing.T) {
	p := NewOrderPlan(7, "d1", []string{"a", "b", "c", "d"})
	want := map[int][]int{
		0: {1, 3, 2, 0}, // π
		1: {0, 2, 3, 1}, // π reversed
		2: {3, 2, 0, 1}, // π shifted by 1
		3: {1, 0, 2, 3}, // that reversed
		8: {1, 3, 2, 0}, // k = 2n: the orders repeat
	}
	for k, w := range want {
		if got := p.Order(k); !slices.Equal(got, w) {
			t.Errorf("order %d = %v, want %v", k, got, w)
		}
	}
	if got := p.Positions(2); !slices.Equal(got, []int{2, 3, 1, 0}) {
		t.Errorf("positions of order 2 = %v", got)
	}
}

// Properties: every order is a permutation; 2j+1 reverses 2j; the first
// 2n orders put each candidate at each position exactly twice.
func TestOrderPlanProperties(t *testing.T) {
	for n := 1; n <= 9; n++ {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = string(rune('A' + i))
		}
		p := NewOrderPlan(42, "ctx", ids)
		count := make([][]int, n)
		for i := range count {
			count[i] = make([]int, n)
		}
		for k := range 2 * n {
			o := p.Order(k)
			s := slices.Clone(o)
			slices.Sort(s)
			for i := range s {
				if s[i] != i {
					t.Fatalf("n %d order %d = %v is not a permutation", n, k, o)
				}
			}
			if k%2 == 1 {
				prev := slices.Clone(p.Order(k - 1))
				slices.Reverse(prev)
				if !slices.Equal(prev, o) {
					t.Errorf("n %d: order %d is not the reversal of %d", n, k, k-1)
				}
			}
			for pos, i := range o {
				count[i][pos]++
			}
		}
		for i := range count {
			for pos, c := range count[i] {
				if c != 2 {
					t.Fatalf("n %d: candidate %d at position %d %d times in 2n orders, want 2", n, i, pos, c)
				}
			}
		}
	}
	if NewOrderPlan(1, "x", nil).N() != 0 || len(NewOrderPlan(1, "x", nil).Order(3)) != 0 {
		t.Error("empty plan")
	}
}

func TestOrderRunLabel(t *testing.T) {
	for _, c := range []struct{ k, r int }{{0, 0}, {7, 0}, {3, 1}, {12, 4}} {
		l := OrderRunLabel(c.k, c.r)
		k, r, ok := ParseOrderRunLabel(l)
		if !ok || k != c.k || r != c.r {
			t.Errorf("%q parsed as %d %d %v", l, k, r, ok)
		}
	}
	for _, bad := range []string{"", "0", "1", "o", "or1", "o1r", "o01", "o1r0", "o-1", "o1r1r", "x1", "o1 "} {
		if _, _, ok := ParseOrderRunLabel(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParseOrderRunLabel(f *testing.F) {
	for _, s := range []string{"o0", "o3r2", "0", "o", "or", "o9999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, r, ok := ParseOrderRunLabel(s)
		if ok && OrderRunLabel(k, r) != s {
			t.Errorf("%q parsed to %d %d which spells %q", s, k, r, OrderRunLabel(k, r))
		}
	})
}
