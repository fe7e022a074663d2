package datasets

import (
	"fmt"
	"math"
	"slices"

	"github.com/prism-eval/prism/model"
)

// DatasetMapping names the columns (paths, as for the mapped score
// formats) of a dataset file as users download it from the Hugging Face
// Hub: one record per candidate.
type DatasetMapping struct {
	Context, Candidate, Text string   // ids: paths, "a,b" or =TEXT (Candidate also "#": 1, 2, … within its context); Text a path
	Source                   string   // optional path of the context's source text
	Human                    string   // the target's path, or
	Criteria                 []string // criterion paths: Scores, Human their mean
	Task                     string   // "" for generic
}

// ReadMappedDataset reads a dataset from a JSON Lines, JSON, CSV or
// Parquet file (format jsonl, json, csv or parquet) by the mapping. The
// dataset is returned only whole and valid; errors name the file, the
// line or row, and the field.
func ReadMappedDataset(format, name string, data []byte, m DatasetMapping) (*model.Dataset, error) {
	switch {
	case m.Context == "" || m.Candidate == "" || m.Text == "":
		return nil, fmt.Errorf("%s: a mapped dataset needs --context, --candidate and --text", name)
	case (m.Human == "") == (len(m.Criteria) == 0):
		return nil, fmt.Errorf("%s: name the target with --human COL or --criteria COL,COL (one of them)", name)
	case m.Task == "":
		m.Task = model.TaskGeneric
	}
	metric := model.MetricSpearman
	d := &model.Dataset{Name: baseName(name), Format: format, Task: m.Task, Metric: metric, Criteria: slices.Clone(m.Criteria)}
	ctxAt := map[string]int{}
	candWhere := map[[2]string]string{}
	add := func(r mappedRecord, where string) error {
		k, ctxID, source, err := mappedCandidate(r, m)
		if err != nil {
			return err
		}
		ci, ok := ctxAt[ctxID]
		if m.Candidate == "#" { // numbered in file order within the context
			k.ID = "1"
			if ok {
				k.ID = itoa(len(d.Contexts[ci].Candidates) + 1)
			}
		}
		key := [2]string{ctxID, k.ID}
		if prev, dup := candWhere[key]; dup {
			return fmt.Errorf("%s: context %s candidate %s already given at %s", where, model.Quote(ctxID), model.Quote(k.ID), prev)
		}
		candWhere[key] = where
		if !ok {
			ci = len(d.Contexts)
			ctxAt[ctxID] = ci
			d.Contexts = append(d.Contexts, model.Context{ID: ctxID, Source: source})
		}
		d.Contexts[ci].Candidates = append(d.Contexts[ci].Candidates, k)
		return nil
	}
	err := eachRecord(format, name, data, add)
	if err != nil {
		return nil, err
	}
	if len(d.Contexts) == 0 {
		return nil, fmt.Errorf("%s: no records", name)
	}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

// mappedCandidate reads one record's candidate, its context id and the
// context's source.
func mappedCandidate(r mappedRecord, m DatasetMapping) (k model.Candidate, ctxID, source string, err error) {
	if ctxID, err = mappedID(r, m.Context, "--context"); err != nil {
		return k, "", "", err
	}
	if m.Candidate != "#" {
		if k.ID, err = mappedID(r, m.Candidate, "--candidate"); err != nil {
			return k, "", "", err
		}
	}
	if k.Text, err = mappedText(r, m.Text, "--text"); err != nil {
		return k, "", "", err
	}
	if m.Source != "" {
		if source, err = mappedText(r, m.Source, "--source"); err != nil {
			return k, "", "", err
		}
	}
	if m.Human != "" {
		h, missing, err := mappedNumber(r, m.Human, "target")
		if err == nil && missing {
			err = r.fail(r.node, m.Human, "missing (the target)")
		}
		k.Human = h
		return k, ctxID, source, err
	}
	k.Scores = map[string]float64{}
	sum := 0.0
	for _, c := range m.Criteria {
		v, missing, err := mappedNumber(r, c, "criterion score")
		if err == nil && missing {
			err = r.fail(r.node, c, "missing (a criterion score)")
		}
		if err != nil {
			return k, "", "", err
		}
		k.Scores[c], sum = v, sum+v
	}
	k.Human = sum / float64(len(m.Criteria))
	if math.IsInf(k.Human, 0) {
		return k, "", "", r.fail(r.node, m.Criteria[0], "the criteria's mean is not finite")
	}
	return k, ctxID, source, nil
}

// mappedText reads a text field: a string, or a number's literal.
func mappedText(r mappedRecord, path, flag string) (string, error) {
	v := lookup(r.node, path)
	switch {
	case v == nil || v.kind == jNull:
		return "", r.fail(r.node, path, "missing (%s %s)", flag, path)
	case v.kind == jString || v.kind == jNumber || v.kind == jBool:
		return v.text, nil
	case r.loc != nil:
		return r.loc.asText(v), nil
	}
	return "", r.fail(v, path, "want a string for %s, got %s", flag, v.kind)
}
