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

// readGenericCSV parses the generic CSV layout: a header row naming the
// columns context, candidate, source, text, human (aliases in
// genericAliases, any case), optional "scores.NAME" columns holding one
// criterion each and an optional task column; every other column is kept
// in Candidate.Extra (empty cells are left out). Empty source cells take
// the context's source from another row; an empty human cell takes the
// mean of the row's criterion scores.
func readGenericCSV(loc *locator) (*model.Dataset, error) {
	t, err := newCSVSheet(loc)
	if err != nil {
		return nil, err
	}
	cols, err := genericCSVHeader(t)
	if err != nil {
		return nil, err
	}
	var rows []genericRow
	err = t.each(func(rec []string) error {
		r, err := cols.row(rec)
		rows = append(rows, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, &ParseError{File: loc.name, Msg: "no rows after the header"}
	}
	return assembleGeneric(baseName(loc.name), FormatCSV, rows)
}

// genericCSVColumns is what the header of a generic CSV says: the column
// of each role, the score columns and the extra columns.
type genericCSVColumns struct {
	t                    *csvSheet
	roleCol              map[string]int
	scoreCols, extraCols []int
}

// genericCSVHeader reads the roles of t's columns; a CSV needs context,
// candidate and text, and human or scores to average.
func genericCSVHeader(t *csvSheet) (*genericCSVColumns, error) {
	c := &genericCSVColumns{t: t, roleCol: map[string]int{}}
	criteria := map[string]bool{}
	for i, h := range t.header {
		lh := strings.ToLower(h)
		switch role := genericRole[lh]; {
		case h == "":
			continue
		case strings.HasPrefix(lh, scoreColumnPrefix):
			crit := strings.TrimSpace(h[len(scoreColumnPrefix):])
			if crit == "" {
				return nil, t.errAt(i, h, "score column needs a criterion name (scores.NAME)")
			}
			if criteria[crit] {
				return nil, t.errAt(i, h, "criterion %s has two columns", model.Quote(crit))
			}
			criteria[crit] = true
			c.scoreCols = append(c.scoreCols, i)
		case role == "" || role == "scores":
			c.extraCols = append(c.extraCols, i)
		default:
			if j, dup := c.roleCol[role]; dup {
				return nil, t.errAt(i, h, "gives the %s again (already column %s)", role, model.Quote(t.header[j]))
			}
			c.roleCol[role] = i
		}
	}
	for _, role := range []string{"context", "candidate", "text"} {
		if _, ok := c.roleCol[role]; !ok {
			return nil, t.errAt(0, role, "missing column (header has %s)", headerList(t.header))
		}
	}
	if _, ok := c.roleCol["human"]; !ok && len(c.scoreCols) == 0 {
		return nil, t.errAt(0, "human", "missing column (give human, or scores.NAME columns to average)")
	}
	return c, nil
}

// cell is rec's cell of role, its column, and whether the CSV has one.
func (c *genericCSVColumns) cell(rec []string, role string) (string, int, bool) {
	i, ok := c.roleCol[role]
	if !ok {
		return "", -1, false
	}
	return rec[i], i, true
}

// row reads one record, the sheet's current one.
func (c *genericCSVColumns) row(rec []string) (genericRow, error) {
	t := c.t
	r := genericRow{line: t.line(), errAt: c.errAt(rec)}
	for _, role := range []string{"context", "candidate"} {
		v, i, _ := c.cell(rec, role)
		v = strings.TrimSpace(v)
		if v == "" {
			return r, t.errAt(i, t.header[i], "empty")
		}
		if role == "context" {
			r.ctx = v
		} else {
			r.cand = v
		}
	}
	r.text, _, _ = c.cell(rec, "text")
	r.source, _, _ = c.cell(rec, "source")
	if v, _, ok := c.cell(rec, "task"); ok {
		r.task = strings.TrimSpace(v)
	}
	if v, i, ok := c.cell(rec, "human"); ok && strings.TrimSpace(v) != "" {
		var err error
		if r.human, err = parseCell(t, i, v); err != nil {
			return r, err
		}
		r.hasHuman = true
	}
	for _, i := range c.scoreCols {
		if strings.TrimSpace(rec[i]) == "" {
			continue
		}
		f, err := parseCell(t, i, rec[i])
		if err != nil {
			return r, err
		}
		r.scores = append(r.scores, namedScore{strings.TrimSpace(t.header[i][len(scoreColumnPrefix):]), f})
	}
	for _, i := range c.extraCols {
		if rec[i] != "" {
			setExtra(&r.extra, t.header[i], rec[i])
		}
	}
	return r, nil
}

// errAt is a row's errAt for the sheet's current record: assembleGeneric
// reports errors after later rows were read, so the positions of this
// row's cells are taken now.
func (c *genericCSVColumns) errAt(rec []string) func(role, format string, args ...any) error {
	t := c.t
	var pos [][2]int
	for i := range rec {
		l, col := t.r.FieldPos(i)
		pos = append(pos, [2]int{l, col})
	}
	return func(role, format string, args ...any) error {
		i, ok := c.roleCol[role]
		field := role
		if ok {
			field = t.header[i]
		} else {
			i = 0
		}
		return &ParseError{File: t.name, Line: pos[i][0], Column: pos[i][1], Field: field, Msg: sprintf(format, args...)}
	}
}

// parseCell parses a numeric cell (a label or score) and checks it with
// CheckNumber.
func parseCell(t *csvSheet, col int, s string) (float64, error) {
	f, err := model.ParseDecimal(strings.TrimSpace(s))
	if err != nil {
		return 0, t.errAt(col, t.header[col], "not a finite number: %s (%v)", model.Quote(s), err)
	}
	if err := model.CheckNumber(f); err != nil {
		return 0, t.errAt(col, t.header[col], "%v", err)
	}
	return f, nil
}

// readGenericJSONL parses the generic JSON Lines layout: one object per
// line with "context", "candidate", "source", "text", "human" (aliases in
// genericAliases), an optional "scores" object of criterion scores and an
// optional "task"; every other field is kept in Candidate.Extra. Ids may be
// strings or numbers; scores may be numbers or numeric strings.
func readGenericJSONL(loc *locator) (*model.Dataset, error) {
	var rows []genericRow
	var lineErr error
	for li, obj := range jsonlObjects(loc, &lineErr) {
		r, err := genericJSONLRow(loc, obj, li+1)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	if lineErr != nil {
		return nil, lineErr
	}
	if len(rows) == 0 {
		return nil, &ParseError{File: loc.name, Msg: "no rows"}
	}
	return assembleGeneric(baseName(loc.name), FormatJSONL, rows)
}

func genericJSONLRow(loc *locator, obj *jnode, line int) (genericRow, error) {
	r := genericRow{line: line}
	f, err := jsonlRoles(loc, obj, &r)
	if err != nil {
		return r, err
	}
	if err := f.ids(&r); err != nil {
		return r, err
	}
	if err := f.fields(&r); err != nil {
		return r, err
	}
	if v, ok := f.given("scores"); ok {
		if r.scores, err = jsonlScores(loc, v, f.used["scores"]); err != nil {
			return r, err
		}
	}
	return r, nil
}

// jsonlRow is the fields of one generic JSONL object by role.
type jsonlRow struct {
	loc  *locator
	obj  *jnode
	used map[string]string // role -> key as written
	at   map[string]*jnode // role -> value
}

// jsonlRoles finds the role of each of obj's keys, keeping the others in
// r's extra fields, and sets r.errAt.
func jsonlRoles(loc *locator, obj *jnode, r *genericRow) (*jsonlRow, error) {
	f := &jsonlRow{loc: loc, obj: obj, used: map[string]string{}, at: map[string]*jnode{}}
	// Errors about a field name the key the file used for it.
	r.errAt = func(role, format string, args ...any) error {
		if v, ok := f.at[role]; ok {
			return loc.errAt(v.off, f.used[role], format, args...)
		}
		return loc.errAt(obj.off, role, format, args...)
	}
	for i, key := range obj.keys {
		v := obj.vals[i]
		role := genericRole[strings.ToLower(strings.TrimSpace(key))]
		if role == "" {
			if v.kind != jNull {
				setExtra(&r.extra, key, loc.asText(v))
			}
			continue
		}
		if prev, dup := f.used[role]; dup {
			return f, loc.errAt(v.off, key, "gives the %s again (already given as %s)", role, model.Quote(prev))
		}
		f.used[role], f.at[role] = key, v
	}
	return f, nil
}

// given is the value of role when the object gives one that is not null.
func (f *jsonlRow) given(role string) (*jnode, bool) {
	v, ok := f.at[role]
	return v, ok && v.kind != jNull
}

// ids reads the context and candidate ids, which every row gives.
func (f *jsonlRow) ids(r *genericRow) error {
	for _, role := range []string{"context", "candidate"} {
		key, ok := f.used[role]
		if !ok {
			return f.loc.errAt(f.obj.off, role, "missing")
		}
		id, err := requiredString(f.loc, f.obj, "", key)
		if err != nil {
			return err
		}
		if role == "context" {
			r.ctx = id
		} else {
			r.cand = id
		}
	}
	return nil
}

// fields reads the text, which every row gives, and the source, human
// score and task, which a row may give.
func (f *jsonlRow) fields(r *genericRow) error {
	loc := f.loc
	var err error
	if v, ok := f.given("text"); ok {
		if r.text, err = loc.asString(v, f.used["text"]); err != nil {
			return err
		}
	} else {
		return loc.errAt(f.obj.off, "text", "missing")
	}
	if v, ok := f.given("source"); ok {
		if r.source, err = loc.asString(v, f.used["source"]); err != nil {
			return err
		}
	}
	if v, ok := f.given("human"); ok {
		if r.human, err = loc.asNumberLoose(v, f.used["human"]); err != nil {
			return err
		}
		r.hasHuman = true
	}
	if v, ok := f.given("task"); ok {
		if r.task, err = loc.asString(v, f.used["task"]); err != nil {
			return err
		}
		r.task = strings.TrimSpace(r.task)
	}
	return nil
}

// jsonlScores reads a row's "scores" object v (at path p): criterion
// name to score, nulls left out.
func jsonlScores(loc *locator, v *jnode, p string) ([]namedScore, error) {
	if err := loc.wantKind(v, p, jObject); err != nil {
		return nil, err
	}
	var out []namedScore
	seen := map[string]bool{}
	for k, name := range v.keys {
		if v.vals[k].kind == jNull {
			continue
		}
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, loc.errAt(v.vals[k].off, p, "empty criterion name")
		}
		if seen[name] {
			return nil, loc.errAt(v.vals[k].off, joinPath(p, name), "criterion given twice")
		}
		seen[name] = true
		f, err := loc.asNumberLoose(v.vals[k], joinPath(p, name))
		if err != nil {
			return nil, err
		}
		out = append(out, namedScore{name, f})
	}
	return out, nil
}
