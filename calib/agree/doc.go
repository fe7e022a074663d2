// Package agree measures how well judges' scores agree with human labels,
// before any probing: the question a team asks first ("how good is my
// judge?"), answered for one or several judges at once with intervals on
// the same context-bootstrap draws, so that two judges are compared by
// paired differences.
//
// The inputs are each judge's baseline score per candidate (averaged over
// repeats) and the human label per candidate, grouped by context
// (docs/agree.md). The metrics are:
//
//   - within-context Spearman, Kendall τ-b and pairwise accuracy, averaged
//     over contexts (docs/protocol.md §6, the fit's metrics);
//   - global Pearson, Spearman and Kendall τ-b over all candidates;
//   - when judge and labels share a scale: mean bias, MAE, Krippendorff's α
//     (interval and ordinal) and, on integer scales, quadratic-weighted
//     Cohen's κ.
//
// Every interval is a percentile 95% interval over context resamples drawn
// as calib.PairedBootstrap draws them (docs/protocol.md §6): the same draws
// serve every judge and every metric.
package agree
