package compare

import (
	"math"
	"slices"

	"github.com/prism-eval/prism/calib"
)

// Paired says whether two fits' outer folds are the same contexts, so
// that their per-fold profiles can be differenced fold by fold: both fits
// split the same permutation π (calib.Report.Order: the same contexts of
// the same dataset in the same order, which the seed drew) into the same
// number of folds. "" when they are paired, else why not.
func Paired(a, b *calib.Report) string {
	switch {
	case a == nil || b == nil:
		return "a fit is missing"
	case datasetOf(a) != datasetOf(b):
		return "different datasets"
	case len(a.Order) == 0 || !slices.Equal(a.Order, b.Order):
		return "different fold orders"
	case len(a.Folds) != len(b.Folds):
		return "different numbers of folds"
	}
	return ""
}

// datasetOf is the workspace dataset a report was fitted on ("" from files).
func datasetOf(r *calib.Report) string {
	if r.Study == nil {
		return ""
	}
	return r.Study.Dataset
}

// Diff is A − B of one profile entry: the difference of the fold means
// and, when the fits are paired (Paired), the paired fold range: the
// smallest and the largest of the per-fold differences A_f − B_f over the
// outer folds f. It is a range, as each judge's own [fold min, fold max],
// not a confidence interval: the outer folds share most of their training
// contexts, so their differences are not independent draws and a
// t-interval over them would claim a precision the fits do not have (and
// the report holds no resamples of the profiles to bootstrap). A paired
// range that excludes 0 says the sign of A − B held in every fold.
type Diff struct {
	Mean     float64
	Min, Max float64
	Paired   bool // Min and Max are set
}

// diffOf is a − b of one profile entry; paired says whether their folds
// are the same contexts.
func diffOf(a, b calib.ProfileStat, paired bool) Diff {
	d := Diff{Mean: a.Mean - b.Mean}
	if !paired || len(a.Folds) == 0 || len(a.Folds) != len(b.Folds) {
		return d
	}
	d.Paired, d.Min, d.Max = true, math.Inf(1), math.Inf(-1)
	for f := range a.Folds {
		x := a.Folds[f] - b.Folds[f]
		d.Min, d.Max = min(d.Min, x), max(d.Max, x)
	}
	return d
}

// Marks of an attribute's profile entries across judges.
const (
	markAgree  = "agree"
	markOppose = "oppose"
)

// signMark says how the judges' corrections of an attribute relate, from
// each judge's fold range: "oppose" when two judges' ranges both exclude 0
// on opposite sides (the corrections push their scores in opposite
// directions), "agree" when every judge's range excludes 0 on the same
// side, "" otherwise (some judge's correction is not clear of 0).
func signMark(stats []calib.ProfileStat) string {
	pos, neg := 0, 0
	for _, s := range stats {
		switch {
		case s.Min > 0:
			pos++
		case s.Max < 0:
			neg++
		}
	}
	switch {
	case pos > 0 && neg > 0:
		return markOppose
	case len(stats) >= 2 && (pos == len(stats) || neg == len(stats)):
		return markAgree
	}
	return ""
}
