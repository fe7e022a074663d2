package signal

import (
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
)

// ScreenSample returns the contexts a signal screen runs on: a copy of d
// holding the first n contexts of Permutation(context ids, seed), in d's
// order; d itself when n = 0 or n ≥ its number of contexts. The name is
// kept, so the screen's requests are the dataset's own and a later full
// run reuses them. Contexts are shared with d, not copied.
func ScreenSample(d *model.Dataset, n int, seed uint64) *model.Dataset {
	if n <= 0 || n >= len(d.Contexts) {
		return d
	}
	ids := make([]string, len(d.Contexts))
	for i, c := range d.Contexts {
		ids[i] = c.ID
	}
	keep := make(map[string]bool, n)
	for _, id := range calib.Permutation(ids, seed)[:n] {
		keep[id] = true
	}
	out := *d
	out.Contexts = nil
	for _, c := range d.Contexts {
		if keep[c.ID] {
			out.Contexts = append(out.Contexts, c)
		}
	}
	return &out
}
