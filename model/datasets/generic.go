package datasets

import (
	"strings"

	"github.com/prism-eval/prism/model"
)

// The generic JSONL and CSV formats share their field names. Each role
// accepts a few aliases (matched case-insensitively); a row that gives two
// names of one role is an error.
var genericAliases = map[string][]string{
	"context":   {"context", "context_id", "group", "doc_id"},
	"candidate": {"candidate", "candidate_id", "system", "system_id", "model"},
	"source":    {"source", "src", "document", "article", "prompt", "question"},
	"text":      {"text", "candidate_text", "output", "response", "summary"},
	"human":     {"human", "score", "target", "y"},
	"scores":    {"scores"},
	"task":      {"task"},
}

// genericRole maps a lower-cased field name to its role, or "".
var genericRole = func() map[string]string {
	m := map[string]string{}
	for role, names := range genericAliases {
		for _, n := range names {
			m[n] = role
		}
	}
	return m
}()

// scoreColumnPrefix marks a generic CSV column holding one criterion's
// score ("scores.coherence"), the flat spelling of JSONL's "scores" object.
const scoreColumnPrefix = "scores."

// genericRow is one parsed row of a generic file, before grouping.
type genericRow struct {
	line      int
	ctx, cand string
	source    string // "" when the row leaves it to another row of its context
	text      string
	human     float64
	hasHuman  bool
	scores    []namedScore
	task      string
	extra     map[string]string
	errAt     func(field, format string, args ...any) error // error at this row's field
}

type namedScore struct {
	name  string
	value float64
}

// assembleGeneric groups rows into a dataset. A context's source is set by
// the first row that gives one; a different source later is an error. A
// row without a human score takes the mean of its criterion scores. The
// caller ensures there is at least one row.
func assembleGeneric(name, format string, rows []genericRow) (*model.Dataset, error) {
	b := newBuilder(name, format, model.TaskGeneric, model.MetricSpearman)
	sourceLine := map[int]int{}
	taskLine := 0
	for _, r := range rows {
		if r.task != "" {
			switch {
			case taskLine == 0:
				if !knownTask(r.task) {
					return nil, r.errAt("task", "unknown task %s (want %s)", model.Quote(r.task), strings.Join(taskNames, ", "))
				}
				b.d.Task, taskLine = r.task, r.line
			case r.task != b.d.Task:
				return nil, r.errAt("task", "%s differs from %s on line %d (one task per dataset)", model.Quote(r.task), model.Quote(b.d.Task), taskLine)
			}
		}
		ci, _ := b.context(r.ctx)
		ctx := &b.d.Contexts[ci]
		if r.source != "" {
			if ctx.Source == "" {
				ctx.Source, sourceLine[ci] = r.source, r.line
			} else if r.source != ctx.Source {
				return nil, r.errAt("source", "differs from the source of context %s given on line %d", model.Quote(r.ctx), sourceLine[ci])
			}
		}
		if b.hasCandidate(ci, r.cand) {
			return nil, r.errAt("candidate", "candidate %s appears twice in context %s", model.Quote(r.cand), model.Quote(r.ctx))
		}
		c := model.Candidate{ID: r.cand, Text: r.text, Human: r.human, Extra: r.extra}
		if len(r.scores) > 0 {
			c.Scores = make(map[string]float64, len(r.scores))
			sum := 0.0
			for _, s := range r.scores {
				c.Scores[s.name] = s.value
				b.criterion(s.name)
				sum += s.value
			}
			if !r.hasHuman {
				c.Human = sum / float64(len(r.scores))
				if !finite(c.Human) {
					return nil, r.errAt("scores", "too large to average")
				}
			}
		} else if !r.hasHuman {
			return nil, r.errAt("human", "missing (give a human score, or criterion scores to average)")
		}
		b.addCandidate(ci, c)
	}
	return b.d, nil
}

var taskNames = []string{model.TaskNewsSummary, model.TaskStory, model.TaskDialogue, model.TaskAnswer, model.TaskGeneric}

func knownTask(t string) bool {
	for _, n := range taskNames {
		if t == n {
			return true
		}
	}
	return false
}
