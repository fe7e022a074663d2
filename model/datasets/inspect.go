package datasets

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/prism-eval/prism/model"
)

// Inspect AI's eval logs (inspect_ai/log/_log.py, _recorders/eval.py): a
// .json log is one EvalLog object {"eval", "samples", ...}; a .eval log
// is a zip of header.json (the EvalLog without samples; an unfinished
// log has only _journal/start.json) and samples/ID_epoch_N.json, one
// EvalSample each, deflate- or zstd-compressed.

// zipZstd is the zip method number of zstd (APPNOTE 4.4.5), which Inspect
// writes when asked for zstd compression.
const zipZstd = 93

// inspectSample is what is kept of one EvalSample.
type inspectSample struct {
	loc           *locator
	node          *jnode // the sample object
	path          string // its field path: samples.N in a .json log, "" in a .eval
	where         string // for errors: FILE: samples/1_epoch_1.json, or FILE
	model         string // the eval's model
	id, epoch     string
	input, output string
	target        *float64
}

// readInspect reads one Inspect log (zip or JSON, told by its first bytes).
func readInspect(name string, data []byte, opts LogOptions) (*ScoreLog, error) {
	var task, evalModel string
	var samples []inspectSample
	var err error
	if bytes.HasPrefix(data, []byte("PK")) {
		task, evalModel, samples, err = readInspectZip(name, data)
	} else {
		task, evalModel, samples, err = readInspectJSON(newLocator(name, data))
	}
	if err != nil {
		return nil, err
	}
	for i := range samples {
		samples[i].model = evalModel
	}
	if task == "" {
		task = baseName(name)
	}
	return inspectRows(name, task, samples, opts)
}

// readInspectJSON reads a .json log: eval.task, eval.model and samples.
func readInspectJSON(loc *locator) (task, evalModel string, samples []inspectSample, err error) {
	top, err := parseJSON(loc, bomLen(loc.data), len(loc.data))
	if err != nil {
		return "", "", nil, err
	}
	if err := loc.wantKind(top, "", jObject); err != nil {
		return "", "", nil, err
	}
	if task, evalModel, err = inspectEval(loc, top); err != nil {
		return "", "", nil, err
	}
	list := top.get("samples")
	if list == nil || list.kind == jNull {
		return "", "", nil, loc.errAt(top.off, "samples", "missing: the log holds no samples (was it written with --no-log-samples?)")
	}
	if err := loc.wantKind(list, "samples", jArray); err != nil {
		return "", "", nil, err
	}
	for i, s := range list.items {
		smp, err := inspectSampleOf(loc, s, "samples."+itoa(i), loc.name)
		if err != nil {
			return "", "", nil, err
		}
		samples = append(samples, smp)
	}
	return task, evalModel, samples, nil
}

// inspectEval reads eval.task and eval.model of a log or header object.
func inspectEval(loc *locator, top *jnode) (task, evalModel string, err error) {
	ev, err := loc.field(top, "", "eval")
	if err != nil {
		return "", "", err
	}
	if err := loc.wantKind(ev, "eval", jObject); err != nil {
		return "", "", err
	}
	if t := ev.get("task"); t != nil && t.kind == jString {
		task = t.text
	}
	m, err := loc.field(ev, "eval", "model")
	if err != nil {
		return "", "", err
	}
	evalModel, err = loc.asString(m, "eval.model")
	return task, evalModel, err
}

// readInspectZip reads a .eval log: the header, then every sample file in
// natural order of its name (ID_epoch_N), so the contexts come in the
// order of their ids rather than of completion.
func readInspectZip(name string, data []byte) (task, evalModel string, samples []inspectSample, err error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", "", nil, fmt.Errorf("%s: not a readable .eval zip: %v", name, err)
	}
	zr.RegisterDecompressor(zipZstd, func(r io.Reader) io.ReadCloser {
		d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30))
		if err != nil {
			return io.NopCloser(errReader{err})
		}
		return d.IOReadCloser()
	})
	budget := int64(model.MaxDatasetFile) // all members together, decompressed: no zip bomb
	byName := map[string]*zip.File{}
	var names []string
	for _, f := range zr.File {
		byName[f.Name] = f
		if strings.HasPrefix(f.Name, "samples/") && strings.HasSuffix(f.Name, ".json") {
			names = append(names, f.Name)
		}
	}
	head := byName["header.json"]
	if head == nil {
		head = byName["_journal/start.json"]
	}
	if head == nil {
		return "", "", nil, fmt.Errorf("%s: no header.json (nor _journal/start.json): not an Inspect .eval log", name)
	}
	loc, err := zipMember(name, head, &budget)
	if err != nil {
		return "", "", nil, err
	}
	top, err := parseJSON(loc, 0, len(loc.data))
	if err == nil {
		err = loc.wantKind(top, "", jObject)
	}
	if err == nil {
		task, evalModel, err = inspectEval(loc, top)
	}
	if err != nil {
		return "", "", nil, err
	}
	slices.SortFunc(names, naturalCompare)
	for _, n := range names {
		loc, err := zipMember(name, byName[n], &budget)
		if err != nil {
			return "", "", nil, err
		}
		s, err := parseJSON(loc, 0, len(loc.data))
		if err != nil {
			return "", "", nil, err
		}
		smp, err := inspectSampleOf(loc, s, "", loc.name)
		if err != nil {
			return "", "", nil, err
		}
		samples = append(samples, smp)
	}
	return task, evalModel, samples, nil
}

// zipMember reads one member of a zip within the remaining budget; its
// locator is named FILE: MEMBER so that errors name both.
func zipMember(name string, f *zip.File, budget *int64) (*locator, error) {
	member := name + ": " + f.Name
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", member, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, *budget+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", member, err)
	}
	if int64(len(data)) > *budget {
		return nil, &model.SizeError{File: name, Limit: model.MaxDatasetFile, What: "a log (its members decompressed)"}
	}
	*budget -= int64(len(data))
	return newLocator(member, data), nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// naturalCompare orders names with their digit runs compared as numbers
// (samples/2_epoch_1.json before samples/10_epoch_1.json).
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := len(na) - len(nb); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digitRun(s string) int {
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// inspectSampleOf reads the id, epoch, texts and target of one sample.
func inspectSampleOf(loc *locator, s *jnode, path, where string) (inspectSample, error) {
	smp := inspectSample{loc: loc, node: s, path: path, where: where}
	if err := loc.wantKind(s, path, jObject); err != nil {
		return smp, err
	}
	id, err := loc.field(s, path, "id")
	if err != nil {
		return smp, err
	}
	if id.kind != jString && id.kind != jNumber {
		return smp, loc.errAt(id.off, joinPath(path, "id"), "want a string or number, got %s", id.kind)
	}
	smp.id, smp.epoch = id.text, "1"
	if e := s.get("epoch"); e != nil && e.kind != jNull {
		if e.kind != jNumber {
			return smp, loc.errAt(e.off, joinPath(path, "epoch"), "want a number, got %s", e.kind)
		}
		smp.epoch = e.text
	}
	attach := s.get("attachments")
	smp.input = inspectText(s.get("input"), attach, true)
	smp.output = inspectOutput(s.get("output"), attach)
	if t := s.get("target"); t != nil {
		if t.kind == jArray && len(t.items) == 1 {
			t = t.items[0]
		}
		if t.kind == jString {
			if v, err := model.ParseDecimal(strings.TrimSpace(t.text)); err == nil && model.CheckNumber(v) == nil {
				smp.target = &v
			}
		}
	}
	return smp, nil
}

// inspectOutput is the model's completion: output.completion, else the
// text of the first choice's message.
func inspectOutput(out, attach *jnode) string {
	if c := out.get("completion"); c != nil && c.kind == jString && c.text != "" {
		return resolveAttachment(c.text, attach)
	}
	if ch := out.get("choices"); ch != nil && ch.kind == jArray && len(ch.items) > 0 {
		return inspectText(ch.items[0].get("message").get("content"), attach, false)
	}
	return ""
}

// inspectText renders an input or content: a string as it is; a list of
// chat messages as their contents (with "role: " before each when there
// are several); a list of content parts as its text parts.
func inspectText(n, attach *jnode, messages bool) string {
	if n == nil {
		return ""
	}
	switch n.kind {
	case jString:
		return resolveAttachment(n.text, attach)
	case jArray:
	default:
		return ""
	}
	var parts []string
	for _, it := range n.items {
		switch {
		case messages && it.get("role") != nil:
			text := inspectText(it.get("content"), attach, false)
			if len(n.items) > 1 {
				text = it.get("role").text + ": " + text
			}
			parts = append(parts, text)
		case it.get("type") != nil && it.get("type").text == "text" && it.get("text") != nil:
			parts = append(parts, resolveAttachment(it.get("text").text, attach))
		}
	}
	return strings.Join(parts, "\n\n")
}

// resolveAttachment replaces an "attachment://HASH" reference (Inspect
// moves long texts into the sample's attachments) by its text.
func resolveAttachment(s string, attach *jnode) string {
	if h, ok := strings.CutPrefix(s, "attachment://"); ok {
		if a := attach.get(h); a != nil && a.kind == jString {
			return a.text
		}
	}
	return s
}

// inspectRows turns samples into the log's rows: the scorer chosen, each
// value converted by valueToFloat.
func inspectRows(name, task string, samples []inspectSample, opts LogOptions) (*ScoreLog, error) {
	scorer, key, err := pickScorer(name, samples, opts.Scorer)
	if err != nil {
		return nil, err
	}
	b := newLogBuilder(task, LogInspect)
	for _, s := range samples {
		r := logRecord{where: s.where, context: s.id, candidate: s.model, run: s.epoch, source: s.input, text: s.output, label: s.target}
		if r.where == name {
			r.where = fmt.Sprintf("%s: sample %s epoch %s", name, s.id, s.epoch)
		}
		if r.context, err = inspectCoord(s, opts.Context, s.id, "--context"); err != nil {
			return nil, err
		}
		if r.candidate, err = inspectCoord(s, opts.Candidate, s.model, "--candidate"); err != nil {
			return nil, err
		}
		if r.score, r.missing, err = inspectScore(s, scorer, key); err != nil {
			return nil, err
		}
		if err := b.add(r); err != nil {
			return nil, err
		}
	}
	return b.finish(name)
}

// inspectCoord reads a context or candidate id: def, or metadata.FIELD.
func inspectCoord(s inspectSample, sel, def, flag string) (string, error) {
	if sel == "" {
		return def, nil
	}
	field, ok := strings.CutPrefix(sel, "metadata.")
	if !ok {
		return "", fmt.Errorf("%s %s: want metadata.FIELD (a field of each sample's metadata)", flag, model.Quote(sel))
	}
	v := s.node.get("metadata").get(field)
	if v == nil || (v.kind != jString && v.kind != jNumber && v.kind != jBool) {
		return "", s.loc.errAt(s.node.off, joinPath(s.path, "metadata", field), "missing or not a string or number (%s %s)", flag, sel)
	}
	return v.text, nil
}

// pickScorer names the scorer to read: the one given (NAME, or NAME.KEY
// for a scorer whose value is a dict), else the only one in the log.
func pickScorer(name string, samples []inspectSample, want string) (scorer, key string, err error) {
	names := map[string]bool{}
	for _, s := range samples {
		if sc := s.node.get("scores"); sc != nil && sc.kind == jObject {
			for _, k := range sc.keys {
				names[k] = true
			}
		}
	}
	switch {
	case len(names) == 0:
		return "", "", fmt.Errorf("%s: no sample has scores (was the log scored? inspect score LOG adds them)", name)
	case want == "" && len(names) > 1:
		return "", "", fmt.Errorf("%s: the log has scorers %s; choose one with --scorer NAME", name, sortedKeys(names))
	case want == "":
		for k := range names {
			return k, "", nil
		}
	case names[want]:
		return want, "", nil
	}
	if i := strings.LastIndexByte(want, '.'); i > 0 && names[want[:i]] {
		return want[:i], want[i+1:], nil
	}
	return "", "", fmt.Errorf("%s: --scorer %s: no such scorer (the log has %s)", name, model.Quote(want), sortedKeys(names))
}

// inspectScore reads one sample's value of the scorer: missing when the
// sample has none (an errored sample).
func inspectScore(s inspectSample, scorer, key string) (float64, bool, error) {
	sc := s.node.get("scores").get(scorer)
	if sc == nil || sc.kind == jNull {
		return 0, true, nil
	}
	path := joinPath(s.path, "scores", scorer, "value")
	v := sc.get("value")
	if v == nil {
		return 0, false, s.loc.errAt(sc.off, path, "missing")
	}
	if key != "" {
		path += "." + key
		if v = v.get(key); v == nil {
			return 0, false, s.loc.errAt(sc.off, path, "missing (the value is not a dict holding %s)", model.Quote(key))
		}
	}
	if v.kind == jNull {
		return 0, true, nil
	}
	if v.kind == jObject && key == "" {
		return 0, false, s.loc.errAt(v.off, path, "a dict of values (%s): name one with --scorer %s.KEY", strings.Join(v.keys, ", "), scorer)
	}
	f, ok := valueToFloat(v)
	if !ok {
		return 0, false, s.loc.errAt(v.off, path, "%s is not a score (want a number, true/false, yes/no, or C, I, P, N)", model.Quote(shortText(v)))
	}
	return f, false, nil
}

// shortText is a value's text for an error: its literal, or its kind.
func shortText(n *jnode) string {
	if n.kind == jString || n.kind == jNumber || n.kind == jBool {
		return n.text
	}
	return n.kind.String()
}
