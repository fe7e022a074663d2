package store

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
