package calib

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestSplitParts(t *testing.T) {
	for _, tc := range []struct {
		n, k  int
		sizes []int
	}{
		{12, 5, []int{3, 3, 2, 2, 2}}, // numpy.array_split(range(12), 5)
		{10, 5, []int{2, 2, 2, 2, 2}},
		{3, 5, []int{1, 1, 1, 0, 0}},
		{0, 2, []int{0, 0}},
		{100, 5, []int{20, 20, 20, 20, 20}},
		{101, 5, []int{21, 20, 20, 20, 20}},
	} {
		b := SplitParts(tc.n, tc.k)
		if b[0] != 0 || b[len(b)-1] != tc.n || len(b) != tc.k+1 {
			t.Fatalf("SplitParts(%d, %d) = %v", tc.n, tc.k, b)
		}
		for f, want := range tc.sizes {
			if got := b[f+1] - b[f]; got != want {
				t.Errorf("SplitParts(%d, %d) part %d has %d items, want %d", tc.n, tc.k, f, got, want)
			}
		}
	}
}

func TestPermutation(t *testing.T) {
	ids := []string{"d", "b", "a", "e", "c", "f", "g"}
	p := Permutation(ids, 42)
	if !slices.Equal(p, Permutation(slices.Clone(ids), 42)) {
		t.Fatal("same seed, different permutation")
	}
	// The input order does not matter: ids are sorted first.
	rev := slices.Clone(ids)
	slices.Reverse(rev)
	if !slices.Equal(p, Permutation(rev, 42)) {
		t.Error("permutation depends on the input order")
	}
	sorted := slices.Sorted(slices.Values(p))
	if !slices.Equal(sorted, []string{"a", "b", "c", "d", "e", "f", "g"}) {
		t.Errorf("not a permutation: %v", p)
	}
	if slices.Equal(p, Permutation(ids, 43)) {
		t.Error("seeds 42 and 43 give the same permutation of 7 ids")
	}
	if ids[0] != "d" || ids[6] != "g" {
		t.Fatal("input modified")
	}
}

func TestReadOrder(t *testing.T) {
	ids, err := ReadOrder(strings.NewReader("\ufeffb\n# comment\n\n a \r\nc"), "o.txt")
	if err != nil || !slices.Equal(ids, []string{"b", "a", "c"}) {
		t.Fatalf("ReadOrder = %v, %v", ids, err)
	}
	_, err = ReadOrder(strings.NewReader("a\nb\na\n"), "o.txt")
	if err == nil || !strings.Contains(err.Error(), "o.txt:3") || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("duplicate id error = %v, want o.txt:3 and line 1", err)
	}
}

func FuzzReadOrder(f *testing.F) {
	f.Add("a\nb\n")
	f.Add("a\na\n")
	f.Add("#x\n\n\ufeff z \r\n")
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := ReadOrder(strings.NewReader(s), "o")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if id == "" || seen[id] {
				t.Fatalf("ReadOrder returned empty or repeated id %q", id)
			}
			seen[id] = true
		}
	})
}

func ExampleSplitParts() {
	b := SplitParts(12, 5)
	for f := 0; f < 5; f++ {
		fmt.Print(b[f+1]-b[f], " ")
	}
	fmt.Println()
	// Output: 3 3 2 2 2
}
