package clikit

import (
	"slices"
	"strings"

	"github.com/prism-eval/prism/model"
)

// NoArgs refuses positional arguments: the commands that take only flags
// say so the same way.
func NoArgs(usage string, pos []string) error {
	if len(pos) > 0 {
		return UsageErr(usage, "unexpected argument %q", pos[0])
	}
	return nil
}

// FitMetrics are the metrics γ is selected by (prism fit, select, budget).
var FitMetrics = []string{model.MetricSpearman, model.MetricPairwise}

// CheckMetric refuses a --metric outside allowed; two choices are named
// "A or B", more "one of A, B, C".
func CheckMetric(usage, metric string, allowed []string) error {
	if slices.Contains(allowed, metric) {
		return nil
	}
	want := "one of " + strings.Join(allowed, ", ")
	if len(allowed) == 2 {
		want = allowed[0] + " or " + allowed[1]
	}
	return UsageErr(usage, "--metric %q: want %s", metric, want)
}
