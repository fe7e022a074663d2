package model

import (
	"fmt"
	"math"
)

// Validate checks the invariants every consumer of a Dataset relies on:
// at least one context; context ids non-empty and unique; every context
// has at least one candidate; candidate ids non-empty and unique within
// their context; human scores and per-criterion scores finite; every
// per-criterion score names a criterion listed in Criteria, which holds no
// empty or repeated names; Task and Metric, when set, are known values.
// An empty Task means TaskGeneric and an empty Metric MetricSpearman.
func (d *Dataset) Validate() error {
	if d == nil {
		return fmt.Errorf("nil dataset")
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("dataset %q: %s", d.Name, fmt.Sprintf(format, args...))
	}
	switch d.Task {
	case "", TaskNewsSummary, TaskStory, TaskDialogue, TaskAnswer, TaskGeneric:
	default:
		return fail("unknown task %q", d.Task)
	}
	switch d.Metric {
	case "", MetricSpearman, MetricPairwise:
	default:
		return fail("unknown metric %q", d.Metric)
	}
	crit := make(map[string]bool, len(d.Criteria))
	for _, c := range d.Criteria {
		if c == "" {
			return fail("empty criterion name")
		}
		if crit[c] {
			return fail("criterion %q listed twice", c)
		}
		crit[c] = true
	}
	if len(d.Contexts) == 0 {
		return fail("no contexts")
	}
	seen := make(map[string]bool, len(d.Contexts))
	for i, c := range d.Contexts {
		if c.ID == "" {
			return fail("context %d has an empty id", i+1)
		}
		if seen[c.ID] {
			return fail("context %q appears twice", c.ID)
		}
		seen[c.ID] = true
		if len(c.Candidates) == 0 {
			return fail("context %q has no candidates", c.ID)
		}
		ids := make(map[string]bool, len(c.Candidates))
		for j, x := range c.Candidates {
			if x.ID == "" {
				return fail("context %q: candidate %d has an empty id", c.ID, j+1)
			}
			if ids[x.ID] {
				return fail("context %q: candidate %q appears twice", c.ID, x.ID)
			}
			ids[x.ID] = true
			if math.IsNaN(x.Human) || math.IsInf(x.Human, 0) {
				return fail("context %q candidate %q: human score %v is not finite", c.ID, x.ID, x.Human)
			}
			for k, v := range x.Scores {
				if !crit[k] {
					return fail("context %q candidate %q: score %q is not a listed criterion", c.ID, x.ID, k)
				}
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fail("context %q candidate %q: %s score %v is not finite", c.ID, x.ID, k, v)
				}
			}
		}
	}
	return nil
}
