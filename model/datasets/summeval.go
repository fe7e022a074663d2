package datasets

import (
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
