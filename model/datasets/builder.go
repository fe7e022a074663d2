package datasets

import "github.com/prism-eval/prism/model"

// builder assembles a Dataset from rows that name their context and
// candidate, keeping contexts and candidates in first-seen order.
type builder struct {
	d        *model.Dataset
	ctxIndex map[string]int   // context id -> index in d.Contexts
	cndIndex []map[string]int // per context: candidate id -> index
	criteria map[string]bool
}

func newBuilder(name, format, task, metric string) *builder {
	return &builder{
		d:        &model.Dataset{Name: name, Format: format, Task: task, Metric: metric},
		ctxIndex: map[string]int{},
		criteria: map[string]bool{},
	}
}

// context returns the index of context id, adding it if new.
func (b *builder) context(id string) (idx int, added bool) {
	if i, ok := b.ctxIndex[id]; ok {
		return i, false
	}
	b.d.Contexts = append(b.d.Contexts, model.Context{ID: id})
	b.cndIndex = append(b.cndIndex, map[string]int{})
	b.ctxIndex[id] = len(b.d.Contexts) - 1
	return len(b.d.Contexts) - 1, true
}

// hasCandidate reports whether context ci already holds candidate id.
func (b *builder) hasCandidate(ci int, id string) bool {
	_, ok := b.cndIndex[ci][id]
	return ok
}

// addCandidate appends c to context ci; the caller checked hasCandidate.
func (b *builder) addCandidate(ci int, c model.Candidate) {
	b.cndIndex[ci][c.ID] = len(b.d.Contexts[ci].Candidates)
	b.d.Contexts[ci].Candidates = append(b.d.Contexts[ci].Candidates, c)
}

// criterion records a criterion name in first-seen order.
func (b *builder) criterion(name string) {
	if !b.criteria[name] {
		b.criteria[name] = true
		b.d.Criteria = append(b.d.Criteria, name)
	}
}

// setExtra stores k=v in *m, allocating the map on first use.
func setExtra(m *map[string]string, k, v string) {
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[k] = v
}
