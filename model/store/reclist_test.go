package store

import "testing"

// TestRecListIsASlice: a recList holds what a plain slice would through
// adds across pages, reserves and truncations at and between page
// boundaries, and keeps every page but the last full.
func TestRecListIsASlice(t *testing.T) {
	var l recList
	var want []scoreRec
	check := func(step string) {
		t.Helper()
		if l.len() != len(want) {
			t.Fatalf("%s: len %d, want %d", step, l.len(), len(want))
		}
		for i := range want {
			if *l.at(i) != want[i] {
				t.Fatalf("%s: record %d = %+v, want %+v", step, i, *l.at(i), want[i])
			}
		}
		for p := 0; p+1 < len(l.pages); p++ {
			if len(l.pages[p]) != recPage {
				t.Fatalf("%s: page %d of %d holds %d records, want %d", step, p, len(l.pages), len(l.pages[p]), recPage)
			}
		}
		if len(want) > 0 && (len(l.pages) == 0 || len(l.pages[len(l.pages)-1]) == 0) {
			t.Fatalf("%s: %d records but an empty last page", step, len(want))
		}
	}
	add := func(n int) {
		for range n {
			r := scoreRec{pair: int32(len(want)), cond: uint32(len(want) % 7), score: float64(len(want)) / 4}
			if got := l.add(r); *got != r {
				t.Fatalf("add returned %+v, want %+v", *got, r)
			}
			want = append(want, r)
		}
	}
	check("empty")
	add(1)
	check("one")
	l.reserve(recPage + 10)
	add(recPage + 10)
	check("past the first page")
	l.truncate(recPage)
	want = want[:recPage]
	check("truncated to a page boundary")
	add(2*recPage + 3)
	check("grown again")
	l.truncate(recPage + 1)
	want = want[:recPage+1]
	check("truncated inside the second page")
	l.truncate(l.len() + 10) // past the end: no change
	check("truncated past the end")
	l.truncate(5000)
	want = want[:5000]
	check("truncated inside the first page")
	l.truncate(0)
	want = want[:0]
	check("truncated to nothing")
	add(3)
	check("after nothing")
	// Adding returns a pointer into the list: marking it marks the record.
	l.add(scoreRec{cond: 3}).answer(1.5, true)
	if r := l.at(3); !r.answered() || !r.missing() || r.condition() != 3 || r.score != 1.5 {
		t.Fatalf("record added and answered reads %+v", *r)
	}
}
