package offline

import "sync"

// memo caches the values of a pure function for concurrent callers. It
// holds at most cacheCap entries and is emptied when full, so a long run
// over many texts keeps bounded memory; a value is computed outside the
// lock, so two callers may compute the same one (the function is pure).
type memo[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

const cacheCap = 1 << 16 // entries per cache before it is emptied

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
	if c.m == nil || len(c.m) >= cacheCap {
		c.m = make(map[K]V)
	}
	c.m[k] = v
	c.mu.Unlock()
	return v
}
