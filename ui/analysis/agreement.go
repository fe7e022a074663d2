package analysis

import (
	"context"

	"github.com/prism-eval/prism/calib/agree"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// Agreement without probes (docs/agree.md, docs/tui-fit.md): how well
// judges' baseline scores agree with the labels, as prism agree measures
// them (agree.ReadStored and agree.Measure, prism agree's defaults), for
// a judge whose study has no probe answers (the Fit tab, in place of the
// fit it cannot make) and for every judge on the Compare tab.

// Agreement is an agreement analysis of one or more judges.
type Agreement struct {
	Res      *agree.Result
	Warnings []string // agree.Build's: candidates or contexts left out
}

// AgreeOptions are prism agree's defaults (2,000 context resamples, seed
// 42, no scale shared with the labels) with the headline of the tab's
// metric: within-context Spearman, or pairwise accuracy.
func AgreeOptions(metric string) agree.Options {
	opts := agree.DefaultOptions()
	opts.Metric = agree.KeySpearman
	if metric == model.MetricPairwise {
		opts.Metric = agree.KeyPairwise
	}
	return opts
}

// MeasureAgreement reads each judge's study on dataset under bankHash
// (its planned runs) and measures them together on the candidates every
// judge scored, on the same resamples: prism agree --judge A,B,…
// --bank BANK with the headline metric.
func MeasureAgreement(ctx context.Context, st *store.Store, dataset, bankHash string, judges []string, metric string) (*Agreement, error) {
	scores := make([]map[agree.Key]float64, len(judges))
	var labels []model.Label
	for i, j := range judges {
		s, err := agree.ReadStored(ctx, st, dataset, j, bankHash, study.Runs{})
		if err != nil {
			return nil, err
		}
		scores[i], labels = s.Scores, s.Labels
	}
	res, _, warnings, err := agree.Measure(labels, judges, scores, AgreeOptions(metric))
	if err != nil {
		return nil, err
	}
	return &Agreement{Res: res, Warnings: warnings}, nil
}
