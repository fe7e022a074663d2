package analysis

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
)

// fitMemLimit is the soft memory limit (debug.SetMemoryLimit) of a fit
// from files, sized from the design being built (docs/performance.md,
// "Fit memory"):
//
//	limit = heap when the scan starts + 1.75 · design bytes + 8 MiB
//
// with the design's bytes as DesignBuilder.DesignBytes counts them (J,
// J̃, s0, y, v, y*). The fit's live heap peaks at about 1.2× the design
// (the builder's sums while the scores are read); without a limit Go lets
// the heap grow to twice the live heap, and the pages it grew into stay
// resident. 1.75× peaked 4–9 MB under 2× at 5,000 contexts in the same
// time; 1.5× saved 4 MB more but ran the collector twice as often as 2×
// and took 5–15% longer (docs/performance.md, "Fit memory"). A limit
// changes when the collector runs, never a result. A limit already set
// (GOMEMLIMIT) is left alone, and restore puts back the previous one, for
// callers that run more than one command in a process.
type fitMemLimit struct {
	on     bool
	prev   int64
	base   int64
	design int64 // the design bytes the limit was last sized from
}

// newFitMemLimit starts a limit; update sets it.
func newFitMemLimit() *fitMemLimit {
	prev := debug.SetMemoryLimit(-1)
	l := &fitMemLimit{prev: prev, on: prev == math.MaxInt64}
	if l.on {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(s)
		if s[0].Value.Kind() == metrics.KindUint64 {
			l.base = int64(s[0].Value.Uint64())
		}
	}
	return l
}

// update sizes the limit from the design's bytes, when they have grown
// by an eighth since it was last set (a builder without a reserved size
// grows candidate by candidate).
func (l *fitMemLimit) update(designBytes int64) {
	if !l.on || designBytes <= l.design+l.design/8 {
		return
	}
	l.design = designBytes
	debug.SetMemoryLimit(l.base + designBytes*7/4 + 8<<20)
}

// restore puts back the limit in force before newFitMemLimit.
func (l *fitMemLimit) restore() {
	if l.on && l.design > 0 {
		debug.SetMemoryLimit(l.prev)
	}
}

// hold adds bytes that stay live while the design is built (a workspace
// fit's packed study, fitStream) to the heap the limit is sized from; the
// next update sets the limit again.
func (l *fitMemLimit) hold(bytes int64) {
	if l.on {
		l.base += bytes
		l.design = 0
	}
}
