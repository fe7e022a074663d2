package datasets

import (
	"strings"

	"github.com/prism-eval/prism/model"
)

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
	// Errors about a field name the key the file used for it.
	used := map[string]string{} // role -> key as written
	at := map[string]*jnode{}   // role -> value
	r.errAt = func(role, format string, args ...any) error {
		if v, ok := at[role]; ok {
			return loc.errAt(v.off, used[role], format, args...)
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
		if prev, dup := used[role]; dup {
			return r, loc.errAt(v.off, key, "gives the %s again (already given as %s)", role, model.Quote(prev))
		}
		used[role], at[role] = key, v
	}
	var err error
	for _, role := range []string{"context", "candidate"} {
		key, ok := used[role]
		if !ok {
			return r, loc.errAt(obj.off, role, "missing")
		}
		id, err := requiredString(loc, obj, "", key)
		if err != nil {
			return r, err
		}
		if role == "context" {
			r.ctx = id
		} else {
			r.cand = id
		}
	}
	if v, ok := at["text"]; ok && v.kind != jNull {
		if r.text, err = loc.asString(v, used["text"]); err != nil {
			return r, err
		}
	} else {
		return r, loc.errAt(obj.off, "text", "missing")
	}
	if v, ok := at["source"]; ok && v.kind != jNull {
		if r.source, err = loc.asString(v, used["source"]); err != nil {
			return r, err
		}
	}
	if v, ok := at["human"]; ok && v.kind != jNull {
		if r.human, err = loc.asNumberLoose(v, used["human"]); err != nil {
			return r, err
		}
		r.hasHuman = true
	}
	if v, ok := at["task"]; ok && v.kind != jNull {
		if r.task, err = loc.asString(v, used["task"]); err != nil {
			return r, err
		}
		r.task = strings.TrimSpace(r.task)
	}
	if v, ok := at["scores"]; ok && v.kind != jNull {
		p := used["scores"]
		if err := loc.wantKind(v, p, jObject); err != nil {
			return r, err
		}
		seen := map[string]bool{}
		for k, name := range v.keys {
			if v.vals[k].kind == jNull {
				continue
			}
			name = strings.TrimSpace(name)
			if name == "" {
				return r, loc.errAt(v.vals[k].off, p, "empty criterion name")
			}
			if seen[name] {
				return r, loc.errAt(v.vals[k].off, joinPath(p, name), "criterion given twice")
			}
			seen[name] = true
			f, err := loc.asNumberLoose(v.vals[k], joinPath(p, name))
			if err != nil {
				return r, err
			}
			r.scores = append(r.scores, namedScore{name, f})
		}
	}
	return r, nil
}
