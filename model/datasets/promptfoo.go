package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/prism-eval/prism/model"
)

// promptfoo's results file (OutputFile in promptfoo's types): the
// current shape, written by promptfoo eval -o and promptfoo export eval,
// is {"evalId", "results": {"version": 3, "results": [EvaluateResult],
// "prompts", "stats"}, "config", ...}; version 2 files hold the same
// results[] beside a table. Older files hold the table's outputs: a
// results.outputs[] of EvaluateTableOutput records, or
// results.table.body[].outputs[]. A job record ({"result": {...}}) and a
// bare summary ({"version", "results": [...]}) are read too.

// pfRecord is one EvaluateResult or EvaluateTableOutput.
type pfRecord struct {
	node   *jnode
	path   string
	prompt int // its prompt's index, for the runs' count
}

// readPromptfoo reads one promptfoo results file.
func readPromptfoo(loc *locator, opts LogOptions) (*ScoreLog, error) {
	top, err := parseJSON(loc, bomLen(loc.data), len(loc.data))
	if err != nil {
		return nil, err
	}
	if err := loc.wantKind(top, "", jObject); err != nil {
		return nil, err
	}
	recs, err := promptfooRecords(loc, top)
	if err != nil {
		return nil, err
	}
	switch opts.Score {
	case "", "score", "output":
	default:
		if !strings.HasPrefix(opts.Score, "namedScores.") || opts.Score == "namedScores." {
			return nil, fmt.Errorf("--score %s: want score, namedScores.NAME or output", model.Quote(opts.Score))
		}
	}
	b := newLogBuilder(baseName(loc.name), LogPromptfoo)
	runs := map[[3]string]int{}
	for _, r := range recs {
		lr, err := promptfooRecord(loc, r, opts)
		if err != nil {
			return nil, err
		}
		// Repeats (promptfoo eval --repeat N) are runs 1…N, counted per
		// context, candidate and prompt.
		key := [3]string{lr.context, lr.candidate, itoa(r.prompt)}
		runs[key]++
		lr.run = itoa(runs[key])
		if err := b.add(lr); err != nil {
			return nil, err
		}
	}
	return b.finish(loc.name)
}

// promptfooRecords finds the records in any of the shapes above.
func promptfooRecords(loc *locator, top *jnode) ([]pfRecord, error) {
	sum, path := top.get("results"), "results"
	if sum == nil {
		sum, path = top.get("result"), "result"
	}
	if sum == nil {
		return nil, loc.errAt(top.off, "results", "missing: not a promptfoo results file (want promptfoo eval -o FILE.json)")
	}
	var recs []pfRecord
	add := func(list *jnode, p string, prompt func(i int, n *jnode) int) error {
		if err := loc.wantKind(list, p, jArray); err != nil {
			return err
		}
		for i, n := range list.items {
			if err := loc.wantKind(n, joinPath(p, itoa(i)), jObject); err != nil {
				return err
			}
			recs = append(recs, pfRecord{node: n, path: joinPath(p, itoa(i)), prompt: prompt(i, n)})
		}
		return nil
	}
	promptIdx := func(_ int, n *jnode) int {
		if p := n.get("promptIdx"); p != nil && p.kind == jNumber {
			v, _ := model.ParseDecimal(p.text)
			return int(v)
		}
		return 0
	}
	switch {
	case sum.kind == jArray: // a bare summary's results
		return recs, add(sum, path, promptIdx)
	case sum.kind != jObject:
		return nil, loc.errAt(sum.off, path, "want an object or array, got %s", sum.kind)
	case sum.get("results") != nil:
		return recs, add(sum.get("results"), path+".results", promptIdx)
	case sum.get("outputs") != nil:
		return recs, add(sum.get("outputs"), path+".outputs", promptIdx)
	case sum.get("table").get("body") != nil:
		body := sum.get("table").get("body")
		if err := loc.wantKind(body, path+".table.body", jArray); err != nil {
			return nil, err
		}
		for i, row := range body.items {
			p := sprintf("%s.table.body.%d.outputs", path, i)
			out, err := loc.field(row, sprintf("%s.table.body.%d", path, i), "outputs")
			if err != nil {
				return nil, err
			}
			if err := add(out, p, func(j int, _ *jnode) int { return j }); err != nil {
				return nil, err
			}
		}
		return recs, nil
	}
	return nil, loc.errAt(sum.off, path, "holds no results, outputs or table.body: not a promptfoo results file")
}

// promptfooRecord reads one record's coordinates, score and texts.
func promptfooRecord(loc *locator, r pfRecord, opts LogOptions) (logRecord, error) {
	n := r.node
	line, col := loc.pos(n.off)
	lr := logRecord{where: sprintf("%s:%d:%d: %s", loc.name, line, col, r.path)}
	vars := n.get("vars")
	if vars == nil || vars.kind != jObject {
		vars = n.get("testCase").get("vars")
	}
	varsPath := r.path + ".vars"
	var err error
	if lr.context, err = promptfooVar(loc, n, vars, varsPath, opts.Context); err != nil {
		return lr, err
	}
	if opts.Context == "" {
		lr.context = promptfooContextHash(loc, promptLabel(n), vars)
	}
	if lr.candidate, err = promptfooVar(loc, n, vars, varsPath, opts.Candidate); err != nil {
		return lr, err
	}
	if opts.Candidate == "" {
		if lr.candidate = providerID(n.get("provider")); lr.candidate == "" {
			return lr, loc.errAt(n.off, r.path+".provider", "missing: name the candidate with --candidate VAR")
		}
	}
	if opts.Label != "" {
		v, err := promptfooVar(loc, n, vars, varsPath, opts.Label)
		if err != nil {
			return lr, err
		}
		h, err := model.ParseDecimal(strings.TrimSpace(v))
		if err != nil {
			return lr, loc.errAt(vars.get(opts.Label).off, varsPath+"."+opts.Label, "label %s is not a number (%v)", model.Quote(v), err)
		}
		lr.label = &h
	}
	output := promptfooOutput(loc, n)
	lr.source = promptfooSource(loc, vars, opts)
	if opts.Score != "output" {
		lr.text = output // the provider's output is what was graded
	}
	lr.score, lr.missing, err = promptfooScore(loc, n, r.path, output, opts)
	return lr, err
}

// promptfooVar reads test variable name ("" gives "") as text.
func promptfooVar(loc *locator, rec, vars *jnode, path, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	v := vars.get(name)
	if v == nil || v.kind == jNull {
		return "", loc.errAt(rec.off, path+"."+name, "missing: the test has no variable %s", model.Quote(name))
	}
	return loc.asText(v), nil
}

// promptfooContextHash names a context where no variable does: a stable
// hash of the prompt's label and the test's variables, keys sorted and
// values as compact JSON, as CJE's promptfoo converter forms its ids.
func promptfooContextHash(loc *locator, label string, vars *jnode) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d:%s", len(label), label)
	if vars != nil && vars.kind == jObject {
		idx := make([]int, len(vars.keys))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, b int) bool { return vars.keys[idx[a]] < vars.keys[idx[b]] })
		for _, i := range idx {
			k, v := vars.keys[i], loc.asText(vars.vals[i])
			fmt.Fprintf(h, "|%d:%s=%d:%s", len(k), k, len(v), v)
		}
	}
	return "pf-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// promptLabel is the record's prompt label, else its raw text.
func promptLabel(n *jnode) string {
	p := n.get("prompt")
	if p == nil {
		return ""
	}
	if p.kind == jString {
		return p.text
	}
	if l := p.get("label"); l != nil && l.kind == jString && l.text != "" {
		return l.text
	}
	if r := p.get("raw"); r != nil && r.kind == jString {
		return r.text
	}
	return ""
}

// providerID is a provider given as a string or as {"id", "label"}.
func providerID(p *jnode) string {
	switch {
	case p == nil:
		return ""
	case p.kind == jString:
		return p.text
	}
	if id := p.get("id"); id != nil && id.kind == jString {
		return id.text
	}
	return ""
}

// promptfooOutput is the provider's output: response.output (an object
// as compact JSON), else the table's text.
func promptfooOutput(loc *locator, n *jnode) string {
	if o := n.get("response").get("output"); o != nil && o.kind != jNull {
		return loc.asText(o)
	}
	if t := n.get("text"); t != nil && t.kind == jString {
		return t.text
	}
	return ""
}

// promptfooSource renders the test's variables but those naming the
// context, candidate and label, one "name: value" line each.
func promptfooSource(loc *locator, vars *jnode, opts LogOptions) string {
	if vars == nil || vars.kind != jObject {
		return ""
	}
	var b strings.Builder
	for i, k := range vars.keys {
		if k == opts.Context || k == opts.Candidate || k == opts.Label {
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n", k, loc.asText(vars.vals[i]))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// promptfooScore reads the chosen score: missing where the record has
// none (an errored test, an assertion that did not run, a reply without
// a score).
func promptfooScore(loc *locator, n *jnode, path, output string, opts LogOptions) (float64, bool, error) {
	switch opts.Score {
	case "output":
		if opts.ParseReply == nil {
			return 0, false, fmt.Errorf("--score output needs a reply parser")
		}
		v, ok := opts.ParseReply(output)
		return v, !ok, nil
	case "", "score":
		return promptfooNumber(loc, n.get("score"), path+".score")
	}
	name := strings.TrimPrefix(opts.Score, "namedScores.")
	v := n.get("namedScores").get(name)
	if v == nil {
		v = n.get("gradingResult").get("namedScores").get(name)
	}
	return promptfooNumber(loc, v, path+".namedScores."+name)
}

func promptfooNumber(loc *locator, v *jnode, path string) (float64, bool, error) {
	if v == nil || v.kind == jNull {
		return 0, true, nil
	}
	f, err := loc.asNumber(v, path)
	return f, false, err
}
