package study

import (
	"context"
	"fmt"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// Comparisons are the comparison labels the dataset keeps
// (model.Dataset.Comparisons: MT-Bench's individual human judgments),
// which a pairwise fit counts (docs/protocol.md §6); nil when it keeps
// none. Only a dataset imported with the pairwise metric can keep them,
// so another is not read.
func Comparisons(ctx context.Context, st *store.Store, dataset string) ([]model.Comparison, error) {
	infos, err := st.Datasets(ctx)
	if err != nil {
		return nil, err
	}
	pairwise := false
	for _, in := range infos {
		pairwise = pairwise || (in.Name == dataset && in.Metric == model.MetricPairwise)
	}
	if !pairwise {
		return nil, nil
	}
	d, err := st.Dataset(ctx, dataset)
	if err != nil {
		return nil, err
	}
	cs, err := d.Comparisons()
	if err != nil {
		return nil, fmt.Errorf("comparison labels: %w", err)
	}
	return cs, nil
}
