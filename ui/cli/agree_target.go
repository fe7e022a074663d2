package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// readCriterionLabels reads the labels of one criterion from a label CSV
// with several criterion columns: a header naming context, candidate and
// target, one row per candidate; an empty cell is a candidate without that
// criterion's label. Errors name the file, line and field.
func readCriterionLabels(path, target string) ([]model.Label, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: line 1: header: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, need := range []string{"context", "candidate", target} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s: line 1: no %q column (--target %s names a criterion column; the header has %s)", path, need, target, strings.Join(head, ","))
		}
	}
	var out []model.Label
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		l := model.Label{Context: strings.TrimSpace(rec[col["context"]]), Candidate: strings.TrimSpace(rec[col["candidate"]]), Line: line}
		if l.Context == "" || l.Candidate == "" {
			return nil, fmt.Errorf("%s: line %d: field \"context\"/\"candidate\": empty id", path, line)
		}
		cell := strings.TrimSpace(rec[col[target]])
		if cell == "" {
			continue
		}
		if l.Human, err = strconv.ParseFloat(cell, 64); err != nil || math.IsNaN(l.Human) || math.IsInf(l.Human, 0) {
			return nil, fmt.Errorf("%s: line %d: field %q: %q is not a finite number", path, line, target, cell)
		}
		out = append(out, l)
	}
}

// datasetCriterionLabels are the dataset's per-candidate scores of one
// criterion (model.Candidate.Scores) as labels; a dataset without that
// criterion fails naming the criteria it has.
func datasetCriterionLabels(ctx context.Context, st *store.Store, dataset, target string) ([]model.Label, error) {
	d, err := st.Dataset(ctx, dataset)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	var out []model.Label
	for _, c := range d.Contexts {
		for _, k := range c.Candidates {
			for name := range k.Scores {
				have[name] = true
			}
			if v, ok := k.Scores[target]; ok && !math.IsNaN(v) {
				out = append(out, model.Label{Context: c.ID, Candidate: k.ID, Human: v})
			}
		}
	}
	if len(out) == 0 {
		crit := "none"
		if len(have) > 0 {
			crit = strings.Join(slices.Sorted(maps.Keys(have)), ", ")
		}
		return nil, fmt.Errorf("--target %s: dataset %q has no criterion %q (its criteria: %s)", target, dataset, target, crit)
	}
	return out, nil
}
