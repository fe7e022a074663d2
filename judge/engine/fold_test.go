package engine

import (
	"testing"

	"github.com/prism-eval/prism/model/store"
)

// The folder's queue holds answers until foldEvery of them wait, or
// foldAfter has passed, or the run has handed out its last request
// (drain), or nothing more comes (close): then take gives them all.
func TestFoldQueueTakesWhenFullDueDrainingOrClosed(t *testing.T) {
	few := make([]store.Response, 3)
	q := newFoldQueue()
	q.push(few, 30)
	if rs, _, n, _ := q.take(nil, false); rs != nil || n != 3 {
		t.Fatalf("3 answers, not due: took %d of %d, want none", len(rs), n)
	}
	if rs, end, _, _ := q.take(nil, true); len(rs) != 3 || end != 30 {
		t.Fatalf("due: took %d answers up to %d, want 3 up to 30", len(rs), end)
	}

	q.push(make([]store.Response, foldEvery), 40)
	if rs, _, _, _ := q.take(nil, false); len(rs) != foldEvery {
		t.Fatalf("a full fold: took %d, want %d", len(rs), foldEvery)
	}

	q.push(few, 50)
	q.drain()
	select {
	case <-q.ready:
	default:
		t.Fatal("drain did not wake the folder")
	}
	if rs, end, _, closed := q.take(nil, false); len(rs) != 3 || end != 50 || closed {
		t.Fatalf("draining: took %d answers up to %d (closed %v), want 3 up to 50", len(rs), end, closed)
	}
	q.push(few[:1], 60) // after the drain, an answer goes at once
	if rs, _, _, _ := q.take(nil, false); len(rs) != 1 {
		t.Fatalf("draining: took %d of 1 answer", len(rs))
	}

	q.close()
	if rs, _, n, closed := q.take(nil, false); rs != nil || n != 0 || !closed {
		t.Fatalf("closed and empty: took %d of %d (closed %v)", len(rs), n, closed)
	}
}
