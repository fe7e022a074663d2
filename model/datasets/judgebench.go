package datasets

import (
	"strings"

	"github.com/prism-eval/prism/model"
)

// readJudgeBench parses one JudgeBench JSONL file.
func readJudgeBench(loc *locator) (*model.Dataset, error) {
	return readJudgeBenchFiles([]*locator{loc})
}

// readJudgeBenchFiles parses JudgeBench JSONL files into one dataset: one
// line per pair {"pair_id", "question", "response_A", "response_B",
// "label": "A>B" | "B>A", "source", "original_id", "response_model"}. Each
// pair is a context (ID = pair_id, Source = question, Extra = source,
// original_id, response_model) with candidates "A" and "B"; the correct
// one has Human = 1, the other 0 (criterion "correct"). Evaluated by
// pairwise accuracy. A pair_id given twice, in one file or across files,
// is an error.
func readJudgeBenchFiles(locs []*locator) (*model.Dataset, error) {
	b := newBuilder(baseName(locs[0].name), FormatJudgeBench, model.TaskAnswer, model.MetricPairwise)
	b.criterion("correct")
	where := map[string]string{} // pair_id -> "file:line" of its first row
	for _, loc := range locs {
		var lineErr error
		for li, row := range jsonlObjects(loc, &lineErr) {
			id, err := requiredString(loc, row, "", "pair_id")
			if err != nil {
				return nil, err
			}
			if first, dup := where[id]; dup {
				return nil, loc.errAt(row.get("pair_id").off, "pair_id", "%s already given at %s", model.Quote(id), first)
			}
			where[id] = loc.name + ":" + itoa(li+1)
			ctx, err := judgeBenchPair(loc, row, id)
			if err != nil {
				return nil, err
			}
			ci, _ := b.context(id)
			b.d.Contexts[ci] = ctx
		}
		if lineErr != nil {
			return nil, lineErr
		}
	}
	if len(b.d.Contexts) == 0 {
		return nil, &ParseError{File: locs[0].name, Msg: "no pairs"}
	}
	return b.d, nil
}

// judgeBenchPair is the context of one pair, id: the question, and
// responses A and B with the label's Human.
func judgeBenchPair(loc *locator, row *jnode, id string) (model.Context, error) {
	ctx := model.Context{ID: id}
	q, err := loc.field(row, "", "question")
	if err != nil {
		return ctx, err
	}
	if ctx.Source, err = loc.asString(q, "question"); err != nil {
		return ctx, err
	}
	for _, k := range []string{"source", "original_id", "response_model"} {
		if v := row.get(k); v != nil && v.kind != jNull {
			setExtra(&ctx.Extra, k, loc.asText(v))
		}
	}
	hA, hB, err := judgeBenchLabel(loc, row)
	if err != nil {
		return ctx, err
	}
	for _, side := range []struct {
		id string
		h  float64
	}{{"A", hA}, {"B", hB}} {
		r, err := loc.field(row, "", "response_"+side.id)
		if err != nil {
			return ctx, err
		}
		text, err := loc.asString(r, "response_"+side.id)
		if err != nil {
			return ctx, err
		}
		ctx.Candidates = append(ctx.Candidates, model.Candidate{
			ID: side.id, Text: text, Human: side.h,
			Scores: map[string]float64{"correct": side.h},
		})
	}
	return ctx, nil
}

// judgeBenchLabel reads the label: Human 1 for the correct response, 0
// for the other.
func judgeBenchLabel(loc *locator, row *jnode) (hA, hB float64, err error) {
	lab, err := loc.field(row, "", "label")
	if err != nil {
		return 0, 0, err
	}
	label, err := loc.asString(lab, "label")
	if err != nil {
		return 0, 0, err
	}
	switch strings.TrimSpace(label) {
	case "A>B":
		return 1, 0, nil
	case "B>A":
		return 0, 1, nil
	}
	return 0, 0, loc.errAt(lab.off, "label", "want \"A>B\" or \"B>A\", got %s", model.Quote(label))
}
