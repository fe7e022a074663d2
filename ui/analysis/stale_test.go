package analysis

import (
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
)

// A fit is stale when the study, the settings or the answers moved on.
func TestFittedStale(t *testing.T) {
	k := study.Key{Dataset: "d", Judge: "j", BankHash: "h"}
	f := Fitted{Key: k, Report: &calib.Report{Metric: model.MetricSpearman}}
	spearman := Settings{Metric: model.MetricSpearman}
	var v study.Versions
	if s := f.Stale(k, true, &v, spearman); s != "" {
		t.Errorf("fresh: %q", s)
	}
	other := k
	other.Judge = "i"
	for _, tc := range []struct {
		cur  study.Key
		s    Settings
		bump study.Key
		want string
	}{
		{other, spearman, study.Key{}, "this fit is of judge j; the Run tab now names i"},
		{k, Settings{Metric: model.MetricPairwise}, study.Key{}, "the metric has changed"},
		{k, Settings{Metric: model.MetricSpearman, Taylor: true}, study.Key{}, "the Taylor setting has changed"},
		{k, spearman, k, "new answers were stored since this fit"},
		{k, spearman, k.Rubric(), "new rubric ratings"},
	} {
		var v study.Versions
		if tc.bump != (study.Key{}) {
			v.Bump(tc.bump)
		}
		if s := f.Stale(tc.cur, true, &v, tc.s); !strings.Contains(s, tc.want) {
			t.Errorf("%+v: %q, want %q", tc, s, tc.want)
		}
	}
	f.Stored = &study.Stored{ID: 3}
	if s := f.Stale(k, true, &v, spearman); !strings.Contains(s, "stored fit #3 of this study") {
		t.Errorf("stored: %q", s)
	}
}
