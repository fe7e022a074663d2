package datasets

import (
	"path/filepath"
	"strings"

	"github.com/prism-eval/prism/model"
)

// SummEvalCriteria are the four expert criteria of SummEval, in file order;
// a summary's target is their mean (docs/protocol.md §10).
var SummEvalCriteria = []string{"coherence", "consistency", "fluency", "relevance"}

// readSummEval parses the BARTScore layout of SummEval (data.json): one
// object keyed by document id, each {"src", "ref_summ", "ref_summs",
// "sys_summs": {system id: {"sys_summ", "scores": {criterion: mean}}}}.
// Documents become contexts (Source = src; Extra "reference" = ref_summ,
// "references" = ref_summs as a JSON array), systems become candidates
// with every score kept and Human = mean of the four expert criteria.
func readSummEval(loc *locator) (*model.Dataset, error) {
	root, err := parseJSON(loc, bomLen(loc.data), len(loc.data))
	if err != nil {
		return nil, err
	}
	if root.kind != jObject {
		return nil, loc.errAt(root.off, "", "want an object of documents keyed by id, got %s", root.kind)
	}
	if len(root.keys) == 0 {
		return nil, loc.errAt(root.off, "", "no documents")
	}
	b := newBuilder(baseName(loc.name), FormatSummEval, model.TaskNewsSummary, model.MetricSpearman)
	for i, docID := range root.keys {
		doc := root.vals[i]
		if strings.TrimSpace(docID) == "" {
			return nil, loc.errAt(doc.off, "", "empty document id")
		}
		if err := loc.wantKind(doc, docID, jObject); err != nil {
			return nil, err
		}
		ci, _ := b.context(docID) // keys are unique: parseJSON rejects duplicates
		ctx := &b.d.Contexts[ci]
		src, err := loc.field(doc, docID, "src")
		if err != nil {
			return nil, err
		}
		if ctx.Source, err = loc.asString(src, joinPath(docID, "src")); err != nil {
			return nil, err
		}
		if err := summEvalReferences(loc, doc, docID, ctx); err != nil {
			return nil, err
		}
		sys, err := loc.field(doc, docID, "sys_summs")
		if err != nil {
			return nil, err
		}
		if err := loc.wantKind(sys, joinPath(docID, "sys_summs"), jObject); err != nil {
			return nil, err
		}
		if len(sys.keys) == 0 {
			return nil, loc.errAt(sys.off, joinPath(docID, "sys_summs"), "no summaries")
		}
		for j, sysID := range sys.keys {
			c, err := summEvalCandidate(loc, b, sys.vals[j], joinPath(docID, "sys_summs", sysID), sysID)
			if err != nil {
				return nil, err
			}
			b.addCandidate(ci, c)
		}
	}
	return b.d, nil
}

// summEvalReferences keeps the reference summaries of a document.
func summEvalReferences(loc *locator, doc *jnode, path string, ctx *model.Context) error {
	if r := doc.get("ref_summ"); r != nil && r.kind != jNull {
		s, err := loc.asString(r, joinPath(path, "ref_summ"))
		if err != nil {
			return err
		}
		setExtra(&ctx.Extra, "reference", s)
	}
	if rs := doc.get("ref_summs"); rs != nil && rs.kind != jNull {
		p := joinPath(path, "ref_summs")
		if err := loc.wantKind(rs, p, jArray); err != nil {
			return err
		}
		for k, it := range rs.items {
			if _, err := loc.asString(it, joinPath(p, itoa(k))); err != nil {
				return err
			}
		}
		setExtra(&ctx.Extra, "references", loc.asText(rs))
		if _, ok := ctx.Extra["reference"]; !ok && len(rs.items) > 0 {
			ctx.Extra["reference"] = rs.items[0].text
		}
	}
	return nil
}

func summEvalCandidate(loc *locator, b *builder, s *jnode, path, sysID string) (model.Candidate, error) {
	if strings.TrimSpace(sysID) == "" {
		return model.Candidate{}, loc.errAt(s.off, path, "empty system id")
	}
	if err := loc.wantKind(s, path, jObject); err != nil {
		return model.Candidate{}, err
	}
	text, err := loc.field(s, path, "sys_summ")
	if err != nil {
		return model.Candidate{}, err
	}
	c := model.Candidate{ID: sysID, Scores: map[string]float64{}}
	if c.Text, err = loc.asString(text, joinPath(path, "sys_summ")); err != nil {
		return model.Candidate{}, err
	}
	scores, err := loc.field(s, path, "scores")
	if err != nil {
		return model.Candidate{}, err
	}
	sp := joinPath(path, "scores")
	if err := loc.wantKind(scores, sp, jObject); err != nil {
		return model.Candidate{}, err
	}
	for k, name := range scores.keys {
		v, err := loc.asNumber(scores.vals[k], joinPath(sp, name))
		if err != nil {
			return model.Candidate{}, err
		}
		if name == "" {
			return model.Candidate{}, loc.errAt(scores.vals[k].off, sp, "empty criterion name")
		}
		c.Scores[name] = v
		b.criterion(name)
	}
	h, missing := summEvalTarget(c.Scores)
	if missing != "" {
		return model.Candidate{}, loc.errAt(scores.off, joinPath(sp, missing), "missing (the target is the mean of coherence, consistency, fluency and relevance)")
	}
	if !finite(h) {
		return model.Candidate{}, loc.errAt(scores.off, sp, "scores too large to average")
	}
	c.Human = h
	return c, nil
}

// summEvalTarget is the mean of the four expert criteria; missing names
// the first one absent.
func summEvalTarget(scores map[string]float64) (mean float64, missing string) {
	sum := 0.0
	for _, k := range SummEvalCriteria {
		v, ok := scores[k]
		if !ok {
			return 0, k
		}
		sum += v
	}
	return sum / float64(len(SummEvalCriteria)), ""
}

// readSummEvalJSONL parses SummEval's original annotation layout
// (model_annotations.aligned.jsonl, or .aligned.paired.jsonl which adds the
// article as "text"): one line per summary with "id" (document),
// "model_id", "decoded", "expert_annotations" (one object of criterion
// scores per expert), optional "turker_annotations", "references",
// "filepath" and "text". Per-expert scores are averaged per criterion;
// crowd scores are kept as "turker.<criterion>" means; Human is the mean of
// the four expert criterion means. Without a directory to find .story
// files in, every document needs its "text".
func readSummEvalJSONL(loc *locator) (*model.Dataset, error) {
	return readSummEvalJSONLFiles(loc, "")
}

// readSummEvalJSONLFiles is readSummEvalJSONL that, when storyDir is set,
// reads an article missing from the file from its CNN/DM .story file.
func readSummEvalJSONLFiles(loc *locator, storyDir string) (*model.Dataset, error) {
	b := newBuilder(baseName(loc.name), FormatSummEvalJSONL, model.TaskNewsSummary, model.MetricSpearman)
	firstLine := map[int]int{} // context index -> line it first appeared on
	var lineErr error
	for li, row := range jsonlObjects(loc, &lineErr) {
		docID, err := requiredString(loc, row, "", "id")
		if err != nil {
			return nil, err
		}
		ci, added := b.context(docID)
		if added {
			firstLine[ci] = li + 1
		}
		if err := summEvalDocument(loc, &b.d.Contexts[ci], row, added, firstLine[ci]); err != nil {
			return nil, err
		}
		c, err := summEvalJSONLCandidate(loc, b, row)
		if err != nil {
			return nil, err
		}
		if b.hasCandidate(ci, c.ID) {
			return nil, loc.errAt(row.off, "model_id", "summary of %s by %s given twice", model.Quote(docID), model.Quote(c.ID))
		}
		b.addCandidate(ci, c)
	}
	if lineErr != nil {
		return nil, lineErr
	}
	if len(b.d.Contexts) == 0 {
		return nil, &ParseError{File: loc.name, Msg: "no summaries"}
	}
	for ci := range b.d.Contexts {
		if err := summEvalArticle(loc, &b.d.Contexts[ci], storyDir, firstLine[ci]); err != nil {
			return nil, err
		}
	}
	return b.d, nil
}

// summEvalDocument sets the document's extra fields from its first row
// (added), and its article from the first row that gives one; a later
// row must give the same article. first is the line of its first row.
func summEvalDocument(loc *locator, ctx *model.Context, row *jnode, added bool, first int) error {
	if added {
		for _, k := range []string{"filepath", "references"} {
			if v := row.get(k); v != nil && v.kind != jNull {
				setExtra(&ctx.Extra, k, loc.asText(v))
			}
		}
		if refs := row.get("references"); refs != nil && refs.kind == jArray && len(refs.items) > 0 && refs.items[0].kind == jString {
			setExtra(&ctx.Extra, "reference", refs.items[0].text)
		}
	}
	t := row.get("text")
	if t == nil || t.kind == jNull {
		return nil
	}
	text, err := loc.asString(t, "text")
	if err != nil {
		return err
	}
	if ctx.Source == "" {
		ctx.Source = text
	} else if text != ctx.Source {
		return loc.errAt(t.off, "text", "article differs from the one given for document %s on line %d", model.Quote(ctx.ID), first)
	}
	return nil
}

// summEvalArticle reads the article of a document no row gave one for
// from its CNN/DM .story file in storyDir.
func summEvalArticle(loc *locator, ctx *model.Context, storyDir string, first int) error {
	if ctx.Source != "" {
		return nil
	}
	if storyDir == "" {
		return loc.errLine(first, "text", "missing: document %s has no article text", model.Quote(ctx.ID))
	}
	article, tried, err := readStoryArticle(storyDir, ctx.ID, ctx.Extra["filepath"])
	if err != nil {
		return err
	}
	if article == "" {
		return loc.errLine(first, "text", "missing, and no CNN/DM story file for %s was found (looked for %s)", model.Quote(ctx.ID), strings.Join(tried, ", "))
	}
	ctx.Source = article
	return nil
}

func summEvalJSONLCandidate(loc *locator, b *builder, row *jnode) (model.Candidate, error) {
	var c model.Candidate
	var err error
	if c.ID, err = requiredString(loc, row, "", "model_id"); err != nil {
		return c, err
	}
	dec, err := loc.field(row, "", "decoded")
	if err != nil {
		return c, err
	}
	if c.Text, err = loc.asString(dec, "decoded"); err != nil {
		return c, err
	}
	ex, err := loc.field(row, "", "expert_annotations")
	if err != nil {
		return c, err
	}
	c.Scores = map[string]float64{}
	n, err := meanAnnotations(loc, b, ex, "expert_annotations", "", c.Scores)
	if err != nil {
		return c, err
	}
	if n == 0 {
		return c, loc.errAt(ex.off, "expert_annotations", "no expert annotations")
	}
	setExtra(&c.Extra, "experts", itoa(n))
	if tk := row.get("turker_annotations"); tk != nil && tk.kind != jNull {
		n, err := meanAnnotations(loc, b, tk, "turker_annotations", "turker.", c.Scores)
		if err != nil {
			return c, err
		}
		if n > 0 {
			setExtra(&c.Extra, "turkers", itoa(n))
		}
	}
	h, missing := summEvalTarget(c.Scores)
	if missing != "" {
		return c, loc.errAt(ex.off, joinPath("expert_annotations", missing), "missing in every annotation (the target is the mean of coherence, consistency, fluency and relevance)")
	}
	if !finite(h) {
		return c, loc.errAt(ex.off, "expert_annotations", "scores too large to average")
	}
	c.Human = h
	return c, nil
}

// meanAnnotations averages an array of {criterion: score} objects per
// criterion into scores (names prefixed), returning the number of objects.
func meanAnnotations(loc *locator, b *builder, arr *jnode, path, prefix string, scores map[string]float64) (int, error) {
	if err := loc.wantKind(arr, path, jArray); err != nil {
		return 0, err
	}
	sum := map[string]float64{}
	cnt := map[string]int{}
	var order []string
	for i, a := range arr.items {
		p := joinPath(path, itoa(i))
		if err := loc.wantKind(a, p, jObject); err != nil {
			return 0, err
		}
		for k, name := range a.keys {
			if a.vals[k].kind == jNull {
				continue
			}
			if name == "" {
				return 0, loc.errAt(a.vals[k].off, p, "empty criterion name")
			}
			v, err := loc.asNumber(a.vals[k], joinPath(p, name))
			if err != nil {
				return 0, err
			}
			if cnt[name] == 0 {
				order = append(order, name)
			}
			sum[name] += v
			cnt[name]++
		}
	}
	for _, name := range order {
		if !finite(sum[name]) {
			return 0, loc.errAt(arr.off, joinPath(path, name), "scores too large to average")
		}
		scores[prefix+name] = sum[name] / float64(cnt[name])
		b.criterion(prefix + name)
	}
	return len(arr.items), nil
}

// readStoryArticle finds the CNN/DM .story file of a SummEval document
// beside the JSONL and returns its article (the text before the first
// "@highlight"), with the paths it tried. A story file or article over
// the size limits is an error; an unreadable candidate path is skipped.
func readStoryArticle(dir, docID, fp string) (article string, tried []string, err error) {
	hash := docID
	for _, p := range []string{"dm-test-", "cnn-test-", "dm-val-", "cnn-val-"} {
		hash = strings.TrimPrefix(hash, p)
	}
	var cands []string
	if fp != "" && !filepath.IsAbs(fp) && !strings.Contains(fp, "..") {
		cands = append(cands, filepath.Join(dir, fp), filepath.Join(dir, "cnndm", filepath.Base(fp)))
	}
	if !strings.ContainsAny(hash, `/\.`) {
		cands = append(cands, filepath.Join(dir, "cnndm", hash+".story"), filepath.Join(dir, hash+".story"))
	}
	for _, p := range cands {
		tried = append(tried, p)
		// The highlights follow the article: allow room for them.
		data, err := model.ReadFileLimited(p, 2*model.MaxText, "a story file")
		if model.IsSizeError(err) {
			return "", tried, err
		}
		if err != nil {
			continue
		}
		body := string(data)
		if i := strings.Index(body, "@highlight"); i >= 0 {
			body = body[:i]
		}
		if a := strings.TrimSpace(body); a != "" {
			if len(a) > model.MaxText {
				return "", tried, &model.SizeError{File: p, Field: "article", Limit: model.MaxText, What: "one text"}
			}
			return a, tried, nil
		}
	}
	return "", tried, nil
}

// requiredString reads a required, non-blank string (or number, for ids
// written as numbers) member of an object.
func requiredString(loc *locator, obj *jnode, path, key string) (string, error) {
	v, err := loc.field(obj, path, key)
	if err != nil {
		return "", err
	}
	p := joinPath(path, key)
	var s string
	switch v.kind {
	case jString, jNumber:
		s = strings.TrimSpace(v.text)
	default:
		return "", loc.errAt(v.off, p, "want string, got %s", v.kind)
	}
	if s == "" {
		return "", loc.errAt(v.off, p, "empty")
	}
	return s, nil
}
