package datasets

import (
	"io"
	"strings"

	"github.com/prism-eval/prism/model"
)

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
	roleCol := map[string]int{}
	criteria := map[string]bool{}
	var scoreCols, extraCols []int
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
			scoreCols = append(scoreCols, i)
		case role == "" || role == "scores":
			extraCols = append(extraCols, i)
		default:
			if j, dup := roleCol[role]; dup {
				return nil, t.errAt(i, h, "gives the %s again (already column %s)", role, model.Quote(t.header[j]))
			}
			roleCol[role] = i
		}
	}
	for _, role := range []string{"context", "candidate", "text"} {
		if _, ok := roleCol[role]; !ok {
			return nil, t.errAt(0, role, "missing column (header has %s)", headerList(t.header))
		}
	}
	if _, ok := roleCol["human"]; !ok && len(scoreCols) == 0 {
		return nil, t.errAt(0, "human", "missing column (give human, or scores.NAME columns to average)")
	}
	var rows []genericRow
	for {
		rec, err := t.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		r := genericRow{line: t.line()}
		// assembleGeneric reports errors after later rows were read, so
		// the positions of this row's cells are taken now.
		var pos [][2]int
		for i := range rec {
			l, c := t.r.FieldPos(i)
			pos = append(pos, [2]int{l, c})
		}
		r.errAt = func(role, format string, args ...any) error {
			i, ok := roleCol[role]
			field := role
			if ok {
				field = t.header[i]
			} else {
				i = 0
			}
			return &ParseError{File: t.name, Line: pos[i][0], Column: pos[i][1], Field: field, Msg: sprintf(format, args...)}
		}
		cell := func(role string) (string, int, bool) {
			i, ok := roleCol[role]
			if !ok {
				return "", -1, false
			}
			return rec[i], i, true
		}
		for _, role := range []string{"context", "candidate"} {
			v, i, _ := cell(role)
			v = strings.TrimSpace(v)
			if v == "" {
				return nil, t.errAt(i, t.header[i], "empty")
			}
			if role == "context" {
				r.ctx = v
			} else {
				r.cand = v
			}
		}
		r.text, _, _ = cell("text")
		r.source, _, _ = cell("source")
		if v, _, ok := cell("task"); ok {
			r.task = strings.TrimSpace(v)
		}
		if v, i, ok := cell("human"); ok && strings.TrimSpace(v) != "" {
			if r.human, err = parseCell(t, i, v); err != nil {
				return nil, err
			}
			r.hasHuman = true
		}
		for _, i := range scoreCols {
			if strings.TrimSpace(rec[i]) == "" {
				continue
			}
			f, err := parseCell(t, i, rec[i])
			if err != nil {
				return nil, err
			}
			r.scores = append(r.scores, namedScore{strings.TrimSpace(t.header[i][len(scoreColumnPrefix):]), f})
		}
		for _, i := range extraCols {
			if rec[i] != "" {
				setExtra(&r.extra, t.header[i], rec[i])
			}
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil, &ParseError{File: loc.name, Msg: "no rows after the header"}
	}
	return assembleGeneric(baseName(loc.name), FormatCSV, rows)
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
