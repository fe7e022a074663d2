package study

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// CriterionLabels are the dataset's per-candidate human scores of one
// criterion (model.Candidate.Scores, e.g. SummEval's coherence) as
// labels, in the dataset's order (as the store's labels are), for an
// analysis that calibrates toward that criterion instead of the dataset's
// overall label (--target). A dataset without that criterion fails
// naming the criteria it has.
func CriterionLabels(ctx context.Context, st *store.Store, dataset, target string) ([]model.Label, error) {
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

// Retarget makes target (a criterion of the study's dataset) the labels
// d measures against, and records it in d's Study; "" keeps the
// dataset's overall label.
func (d *Data) Retarget(ctx context.Context, st *store.Store, target string) error {
	if target == "" {
		return nil
	}
	labels, err := CriterionLabels(ctx, st, d.Study.Dataset, target)
	if err != nil {
		return err
	}
	d.Labels, d.Study.Target = labels, target
	return nil
}
