package engine

import (
	"sync"
	"weak"
)

// An Item names its plan by a slot of planRefs rather than by a pointer,
// so that a plan's Items hold no pointer at all and Go's collector never
// scans them (a 608,000-request plan is 39 MB of items, scanned on every
// cycle while each held a pointer). A slot holds a weak pointer, so
// registering does not keep a plan alive, and a slot whose plan was
// collected is reused: Item.Row needs its plan alive, as it is while
// anything reads the plan's Items through the plan.
//
// The slots are a fixed array (untouched pages cost no memory) so that
// Row reads its slot without a lock: a slot is written only while free,
// and the plan's creation happens before any use of its items.
var planRefs struct {
	mu    sync.Mutex // serialises register
	used  int        // slots[:used] have been handed out at least once
	slots [maxPlanRefs]weak.Pointer[Plan]
}

// maxPlanRefs bounds the plans alive at once (an Item's ref is a uint16),
// not the plans ever made.
const maxPlanRefs = 1 << 16

// register gives p a free slot and returns it.
func (p *Plan) register() uint16 {
	planRefs.mu.Lock()
	defer planRefs.mu.Unlock()
	w := weak.Make(p)
	for i := range planRefs.used {
		if planRefs.slots[i].Value() == nil {
			planRefs.slots[i] = w
			return uint16(i)
		}
	}
	if planRefs.used == maxPlanRefs {
		panic("engine: more than 65,536 plans alive at once")
	}
	planRefs.slots[planRefs.used] = w
	planRefs.used++
	return uint16(planRefs.used - 1)
}

// planOf is the plan of slot ref.
func planOf(ref uint16) *Plan {
	p := planRefs.slots[ref].Value()
	if p == nil {
		panic("engine: Item.Row of an item whose plan is no longer referenced")
	}
	return p
}
