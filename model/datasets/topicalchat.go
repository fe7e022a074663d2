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
	b := newBuilder(baseName(loc.name), FormatTopicalChat, model.TaskDialogue, model.MetricSpearman)
	byHistory := map[string]string{} // dialogue history -> context id
	for i, row := range root.items {
		path := itoa(i)
		if err := loc.wantKind(row, path, jObject); err != nil {
			return nil, err
		}
		hist, err := loc.field(row, path, "source")
		if err != nil {
			return nil, err
		}
		history, err := loc.asString(hist, joinPath(path, "source"))
		if err != nil {
			return nil, err
		}
		history = strings.TrimRight(history, " \t\r\n")
		id, ok := byHistory[history]
		if !ok {
			id = fmt.Sprintf("tc%03d", len(byHistory)+1)
			byHistory[history] = id
		}
		ci, added := b.context(id)
		ctx := &b.d.Contexts[ci]
		var knowledge string
		if k := row.get("context"); k != nil && k.kind != jNull {
			if knowledge, err = loc.asString(k, joinPath(path, "context")); err != nil {
				return nil, err
			}
			knowledge = strings.TrimSpace(knowledge)
		}
		if added {
			ctx.Source = history
			if knowledge != "" {
				setExtra(&ctx.Extra, "knowledge", knowledge)
			}
		}
		c := model.Candidate{Scores: map[string]float64{}}
		if c.ID, err = requiredString(loc, row, path, "system_id"); err != nil {
			return nil, err
		}
		if knowledge != ctx.Extra["knowledge"] {
			setExtra(&c.Extra, "knowledge", knowledge) // a fact that differs from the context's
		}
		out, err := loc.field(row, path, "system_output")
		if err != nil {
			return nil, err
		}
		if c.Text, err = loc.asString(out, joinPath(path, "system_output")); err != nil {
			return nil, err
		}
		c.Text = strings.TrimSpace(c.Text)
		sc, err := loc.field(row, path, "scores")
		if err != nil {
			return nil, err
		}
		sp := joinPath(path, "scores")
		if err := loc.wantKind(sc, sp, jObject); err != nil {
			return nil, err
		}
		for k, name := range sc.keys {
			if name == "" {
				return nil, loc.errAt(sc.vals[k].off, sp, "empty criterion name")
			}
			v, err := loc.asNumber(sc.vals[k], joinPath(sp, name))
			if err != nil {
				return nil, err
			}
			c.Scores[name] = v
			b.criterion(name)
		}
		overall, ok := c.Scores["overall"]
		if !ok {
			return nil, loc.errAt(sc.off, joinPath(sp, "overall"), "missing (the target is the overall score)")
		}
		c.Human = overall
		if b.hasCandidate(ci, c.ID) {
			return nil, loc.errAt(row.off, joinPath(path, "system_id"), "system %s appears twice for dialogue %s", model.Quote(c.ID), shortField(id))
		}
		b.addCandidate(ci, c)
	}
	return b.d, nil
}
