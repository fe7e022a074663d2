package datasets

import (
	"fmt"
	"strings"

	"github.com/prism-eval/prism/model"
)

// readTopicalChat parses USR Topical-Chat in UniEval's layout: a JSON array
// of {"source" (dialogue history), "system_id", "system_output",
// "context" (the knowledge fact), "scores": {criterion: mean}}. Rows that
// share a dialogue history form one context, numbered tc001, tc002, … in
// order of first appearance; Source is the history and Extra["knowledge"]
// the fact. Candidates are the systems; Human = scores.overall. Trailing
// white space of the history and surrounding white space of a response
// (tokenisation left-overs) are trimmed.
func readTopicalChat(loc *locator) (*model.Dataset, error) {
	root, err := parseJSON(loc, bomLen(loc.data), len(loc.data))
	if err != nil {
		return nil, err
	}
	if root.kind != jArray {
		return nil, loc.errAt(root.off, "", "want an array of rated responses, got %s", root.kind)
	}
	if len(root.items) == 0 {
		return nil, loc.errAt(root.off, "", "no rows")
	}
	r := &topicalChat{loc: loc, b: newBuilder(baseName(loc.name), FormatTopicalChat, model.TaskDialogue, model.MetricSpearman),
		byHistory: map[string]string{}}
	for i, row := range root.items {
		if err := r.row(row, itoa(i)); err != nil {
			return nil, err
		}
	}
	return r.b.d, nil
}

// topicalChat builds the dataset of a Topical-Chat file row by row.
type topicalChat struct {
	loc       *locator
	b         *builder
	byHistory map[string]string // dialogue history -> context id
}

// row adds one rated response (at path) to the context of its history.
func (r *topicalChat) row(row *jnode, path string) error {
	loc, b := r.loc, r.b
	if err := loc.wantKind(row, path, jObject); err != nil {
		return err
	}
	ci, id, knowledge, err := r.context(row, path)
	if err != nil {
		return err
	}
	ctx := &b.d.Contexts[ci]
	c := model.Candidate{Scores: map[string]float64{}}
	if c.ID, err = requiredString(loc, row, path, "system_id"); err != nil {
		return err
	}
	if knowledge != ctx.Extra["knowledge"] {
		setExtra(&c.Extra, "knowledge", knowledge) // a fact that differs from the context's
	}
	out, err := loc.field(row, path, "system_output")
	if err != nil {
		return err
	}
	if c.Text, err = loc.asString(out, joinPath(path, "system_output")); err != nil {
		return err
	}
	c.Text = strings.TrimSpace(c.Text)
	if err := r.scores(row, path, &c); err != nil {
		return err
	}
	if b.hasCandidate(ci, c.ID) {
		return loc.errAt(row.off, joinPath(path, "system_id"), "system %s appears twice for dialogue %s", model.Quote(c.ID), shortField(id))
	}
	b.addCandidate(ci, c)
	return nil
}

// context finds or adds the context of row's dialogue history, and
// returns its index and id and the row's knowledge fact.
func (r *topicalChat) context(row *jnode, path string) (ci int, id, knowledge string, err error) {
	loc := r.loc
	hist, err := loc.field(row, path, "source")
	if err != nil {
		return 0, "", "", err
	}
	history, err := loc.asString(hist, joinPath(path, "source"))
	if err != nil {
		return 0, "", "", err
	}
	history = strings.TrimRight(history, " \t\r\n")
	id, ok := r.byHistory[history]
	if !ok {
		id = fmt.Sprintf("tc%03d", len(r.byHistory)+1)
		r.byHistory[history] = id
	}
	ci, added := r.b.context(id)
	ctx := &r.b.d.Contexts[ci]
	if k := row.get("context"); k != nil && k.kind != jNull {
		if knowledge, err = loc.asString(k, joinPath(path, "context")); err != nil {
			return 0, "", "", err
		}
		knowledge = strings.TrimSpace(knowledge)
	}
	if added {
		ctx.Source = history
		if knowledge != "" {
			setExtra(&ctx.Extra, "knowledge", knowledge)
		}
	}
	return ci, id, knowledge, nil
}

// scores reads row's criterion scores into c; Human is the overall one.
func (r *topicalChat) scores(row *jnode, path string, c *model.Candidate) error {
	loc := r.loc
	sc, err := loc.field(row, path, "scores")
	if err != nil {
		return err
	}
	sp := joinPath(path, "scores")
	if err := loc.wantKind(sc, sp, jObject); err != nil {
		return err
	}
	for k, name := range sc.keys {
		if name == "" {
			return loc.errAt(sc.vals[k].off, sp, "empty criterion name")
		}
		v, err := loc.asNumber(sc.vals[k], joinPath(sp, name))
		if err != nil {
			return err
		}
		c.Scores[name] = v
		r.b.criterion(name)
	}
	overall, ok := c.Scores["overall"]
	if !ok {
		return loc.errAt(sc.off, joinPath(sp, "overall"), "missing (the target is the overall score)")
	}
	c.Human = overall
	return nil
}
