package offline

import "sync"

// memo caches the values of a pure function for concurrent callers. It
// holds at most limit entries (cacheCap when 0) and is emptied when full,
// so a long run over many texts keeps bounded memory; a value is computed
// outside the lock, so two callers may compute the same one (the function
// is pure, so what a call returns never depends on what is cached).
type memo[K comparable, V any] struct {
	mu    sync.Mutex
	m     map[K]V
	limit int
}

const cacheCap = 1 << 16 // entries per cache before it is emptied

// A run sends a context's requests together (engine.cursor), so the
// source and candidate caches need to hold only the few contexts in
// flight: sourceCap sources (about 9 KB each) and candCap candidates.
// With cacheCap they held every source of a 2,000-context study, 27 MB
// that grew with the study (docs/performance.md).
const (
	sourceCap = 64
	candCap   = 1024
)

// get returns the value of k, computing it with f when it is not cached.
func (c *memo[K, V]) get(k K, f func() V) V {
	c.mu.Lock()
	v, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = f()
	c.mu.Lock()
	limit := c.limit
	if limit <= 0 {
		limit = cacheCap
	}
	if c.m == nil || len(c.m) >= limit {
		c.m = make(map[K]V)
	}
	c.m[k] = v
	c.mu.Unlock()
	return v
}
