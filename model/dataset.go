package model

import (
	"maps"
	"slices"
)

// Metric names the within-context agreement metric a dataset is evaluated
// with (docs/protocol.md §6).
const (
	MetricSpearman = "spearman"
	MetricPairwise = "pairwise"
)

// Task kinds select the task prompt a probe bank renders (banks/).
const (
	TaskNewsSummary = "news-summary"
	TaskStory       = "story"
	TaskDialogue    = "dialogue"
	TaskAnswer      = "answer"
	TaskGeneric     = "generic"
)

// Dataset is one study's evaluation data: contexts (groups that share a
// source) holding candidates with human scores.
type Dataset struct {
	Name     string    // short name, unique within a workspace
	Format   string    // loader that read it: summeval, topicalchat, judgebench, hanna, jsonl, csv, demo
	Task     string    // one of the Task* constants
	Metric   string    // MetricSpearman or MetricPairwise
	Criteria []string  // per-criterion human score names, in file order
	Contexts []Context // in file order
}

// Context is one source item (an article, a writing prompt, a dialogue) and
// the candidates written for it.
type Context struct {
	ID         string
	Source     string            // text shown to the judge as the source
	Extra      map[string]string // other fields kept from the file (e.g. "knowledge")
	Candidates []Candidate
}

// Candidate is one evaluated text with its human scores.
type Candidate struct {
	ID     string
	Text   string
	Human  float64            // the target y_i (docs/protocol.md §1, §10)
	Scores map[string]float64 // per-criterion human scores (means where raters were averaged)
	Extra  map[string]string
}

// NumCandidates counts the candidates over all contexts.
func (d *Dataset) NumCandidates() int {
	n := 0
	for _, c := range d.Contexts {
		n += len(c.Candidates)
	}
	return n
}

// Find returns context ctx and its candidate cand, (c, nil) when the
// context has no such candidate, or (nil, nil) without the context.
func (d *Dataset) Find(ctx, cand string) (*Context, *Candidate) {
	ci, ki := d.Locate(ctx, cand)
	switch {
	case ci < 0:
		return nil, nil
	case ki < 0:
		return &d.Contexts[ci], nil
	}
	return &d.Contexts[ci], &d.Contexts[ci].Candidates[ki]
}

// Locate returns the indexes of context ctx in Contexts and of its
// candidate cand in its Candidates, each -1 when absent.
func (d *Dataset) Locate(ctx, cand string) (ci, ki int) {
	ci = slices.IndexFunc(d.Contexts, func(c Context) bool { return c.ID == ctx })
	if ci < 0 {
		return -1, -1
	}
	return ci, slices.IndexFunc(d.Contexts[ci].Candidates, func(k Candidate) bool { return k.ID == cand })
}

// Clone returns a deep copy of d: no slice or map is shared with d.
func (d *Dataset) Clone() *Dataset {
	if d == nil {
		return nil
	}
	c := *d
	c.Criteria = append([]string(nil), d.Criteria...)
	c.Contexts = make([]Context, len(d.Contexts))
	for i, x := range d.Contexts {
		x.Extra = maps.Clone(x.Extra)
		cands := make([]Candidate, len(x.Candidates))
		for j, y := range x.Candidates {
			y.Scores = maps.Clone(y.Scores)
			y.Extra = maps.Clone(y.Extra)
			cands[j] = y
		}
		x.Candidates = cands
		c.Contexts[i] = x
	}
	return &c
}
