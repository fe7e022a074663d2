package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/styles"
)

// stat is a profile entry from its per-fold values.
func stat(folds ...float64) calib.ProfileStat {
	s := calib.ProfileStat{Min: math.Inf(1), Max: math.Inf(-1), Folds: folds}
	for _, x := range folds {
		s.Mean += x / float64(len(folds))
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	return s
}

// handReports are two fits on the same five folds of dataset d:
//
//	x: A's a_k > 0 and B's < 0 in every fold: they oppose;
//	   A − B per fold 0.2, 0.25, 0.5, 0.3, 0.25: mean 0.3, range [0.2, 0.5].
//	y: A's a_k crosses 0: no mark; A − B per fold 0, −0.3, 0, 0, 0: mean −0.06.
//	z: both > 0 in every fold: they agree; per fold A − B 0, 0.1, −0.1, 0, 0.
func handReports() (a, b *calib.Report) {
	mk := func(x, y, z calib.ProfileStat) *calib.Report {
		return &calib.Report{
			Study: &model.Study{Dataset: "d"}, Order: []string{"c3", "c1", "c5", "c2", "c4"}, Folds: make([]calib.Fold, 5),
			Profiles: map[string]*calib.Profile{"x": {A: x, E: x}, "y": {A: y, E: y}, "z": {A: z, E: z}},
		}
	}
	a = mk(stat(0.1, 0.2, 0.3, 0.2, 0.2), stat(0.1, -0.1, 0.1, 0.1, 0.1), stat(0.5, 0.6, 0.4, 0.5, 0.5))
	b = mk(stat(-0.1, -0.05, -0.2, -0.1, -0.05), stat(0.1, 0.2, 0.1, 0.1, 0.1), stat(0.5, 0.5, 0.5, 0.5, 0.5))
	return a, b
}

func TestPaired(t *testing.T) {
	a, b := handReports()
	if why := Paired(a, b); why != "" {
		t.Errorf("same folds: not paired (%s)", why)
	}
	c := *b
	c.Order = []string{"c1", "c3", "c5", "c2", "c4"}
	if why := Paired(a, &c); why != "different fold orders" {
		t.Errorf("another order: %q", why)
	}
	c = *b
	c.Study = &model.Study{Dataset: "other"}
	if why := Paired(a, &c); why != "different datasets" {
		t.Errorf("another dataset: %q", why)
	}
	c = *b
	c.Folds = make([]calib.Fold, 4)
	if why := Paired(a, &c); why != "different numbers of folds" {
		t.Errorf("another fold count: %q", why)
	}
}

func TestDiffOf(t *testing.T) {
	a, b := handReports()
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-12 }
	for _, tc := range []struct {
		attr           string
		mean, min, max float64
	}{
		{"x", 0.3, 0.2, 0.5},
		{"y", -0.06, -0.3, 0},
		{"z", 0, -0.1, 0.1},
	} {
		d := diffOf(a.Profiles[tc.attr].A, b.Profiles[tc.attr].A, true)
		if !d.Paired || !near(d.Mean, tc.mean) || !near(d.Min, tc.min) || !near(d.Max, tc.max) {
			t.Errorf("%s: %+v, want %g [%g, %g]", tc.attr, d, tc.mean, tc.min, tc.max)
		}
		if d := diffOf(a.Profiles[tc.attr].A, b.Profiles[tc.attr].A, false); d.Paired || !near(d.Mean, tc.mean) {
			t.Errorf("%s not paired: %+v, want the mean %g alone", tc.attr, d, tc.mean)
		}
	}
}

func TestSignMark(t *testing.T) {
	a, b := handReports()
	for attr, want := range map[string]string{"x": markOppose, "y": "", "z": markAgree} {
		if got := signMark([]calib.ProfileStat{a.Profiles[attr].A, b.Profiles[attr].A}); got != want {
			t.Errorf("%s: %q, want %q", attr, got, want)
		}
	}
	for _, tc := range []struct {
		stats []calib.ProfileStat
		want  string
	}{
		{[]calib.ProfileStat{stat(0.1, 0.2), stat(0.3, 0.1), stat(-0.1, -0.2)}, markOppose},
		{[]calib.ProfileStat{stat(-0.1, -0.2), stat(-0.3, -0.1)}, markAgree},
		{[]calib.ProfileStat{stat(0.1, 0.2)}, ""}, // one judge: nothing to compare
		{[]calib.ProfileStat{stat(0.1, 0.2), stat(0, 0.1)}, ""},
	} {
		if got := signMark(tc.stats); got != tc.want {
			t.Errorf("signMark(%v) = %q, want %q", tc.stats, got, tc.want)
		}
	}
}

// The profiles of the hand-made fits: the marks, each judge's fold
// range and the paired difference; not paired, the mean difference alone.
func TestProfileLines(t *testing.T) {
	a, b := handReports()
	ok := []JudgeFit{{Judge: "A strict-judge (simulator)", Rep: a}, {Judge: "B verbose-judge (simulator)", Rep: b}}
	text := ansi.Strip(strings.Join(profileLines(styles.New(true), ok, 100), "\n"))
	for _, want := range []string{
		"A strict-judge (simulator)  +0.2000 [+0.1000, +0.3000]",
		"B verbose-judge (simulator) -0.1000 [-0.2000, -0.0500]",
		"A−B                         +0.3000 [+0.2000, +0.5000]",
		"A−B                         +0.0000 [-0.1000, +0.1000]",
		"Opposing", "over-weights it relative to the human labels", "not a confidence interval",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	marks := map[string]string{}
	for _, l := range strings.Split(text, "\n") {
		if f := strings.Fields(l); len(f) > 0 && len(f[0]) == 1 && strings.Contains("xyz", f[0]) {
			marks[f[0]] = strings.Join(f[1:], " ")
		}
	}
	if !strings.Contains(marks["x"], " oppose ") || !strings.HasSuffix(marks["x"], " oppose") ||
		strings.Contains(marks["y"], "agree") || strings.Contains(marks["y"], "oppose") ||
		!strings.Contains(marks["z"], " agree ") || !strings.HasSuffix(marks["z"], " agree") {
		t.Errorf("marks: %q", marks)
	}

	c := *b
	c.Order = []string{"c1", "c3", "c5", "c2", "c4"}
	ok[1].Rep = &c
	text = ansi.Strip(strings.Join(profileLines(styles.New(true), ok, 100), "\n"))
	for _, want := range []string{"A−B                         +0.3000 not paired", "A−B not paired: different fold orders"} {
		if !strings.Contains(text, want) {
			t.Errorf("not paired: no %q in\n%s", want, text)
		}
	}
}

// Names stay whole while the width has room and are cut in the middle
// with … only when it has not.
func TestProfileNamesUncut(t *testing.T) {
	a, b := handReports()
	ok := []JudgeFit{{Judge: "A offline-strict (simulator)", Rep: a}, {Judge: "B offline-verbose (simulator)", Rep: b}}
	if text := ansi.Strip(strings.Join(profileLines(styles.New(true), ok, 96), "\n")); !strings.Contains(text, "B offline-verbose (simulator) ") || strings.Contains(text, "…)") {
		t.Errorf("96 columns cut a name:\n%s", text)
	}
	text := ansi.Strip(strings.Join(profileLines(styles.New(true), ok, 70), "\n"))
	if strings.Contains(text, "B offline-verbose (simulator)") || !strings.Contains(text, "B offl…") {
		t.Errorf("70 columns: the names not cut with …:\n%s", text)
	}
}

// With three judges every difference is against the first, A, and the
// tab says so.
func TestProfileLinesThreeJudges(t *testing.T) {
	a, b := handReports()
	ok := []JudgeFit{{Judge: "A one", Rep: a}, {Judge: "B two", Rep: b}, {Judge: "C three", Rep: a}}
	text := ansi.Strip(strings.Join(profileLines(styles.New(true), ok, 100), "\n"))
	for _, want := range []string{
		"A−B            +0.3000 [+0.2000, +0.5000]",
		"A−C            +0.0000 [+0.0000, +0.0000]",
		"every difference is against the first, A one",
		"A−X: A's mean minus judge X's",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
}
