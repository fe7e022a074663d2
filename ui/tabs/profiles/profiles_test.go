package profiles

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
)

// fakeServices is the App as the Profiles tab sees it: study k at
// version 0.
type fakeServices struct{ k study.Key }

func (*fakeServices) Styles() *styles.Styles   { return styles.New(true) }
func (f *fakeServices) Key() (study.Key, bool) { return f.k, true }
func (*fakeServices) Versions() tab.Versions   { return &study.Versions{} }

func stat(mean float64) calib.ProfileStat {
	return calib.ProfileStat{Mean: mean, Min: mean - 0.1, Max: mean + 0.1, Folds: []float64{mean}, SignStable: 1}
}

func TestTab(t *testing.T) {
	k := study.Key{Dataset: "d", Judge: "j", BankHash: "h"}
	v := New(&fakeServices{k: k}, DefaultKeyMap())
	v.SetSize(100, 30)
	if !strings.Contains(ansi.Strip(v.View()), "no fit yet") {
		t.Fatalf("before a fit:\n%s", v.View())
	}
	rep := &calib.Report{Metric: model.MetricSpearman, Folds: make([]calib.Fold, 1), Profiles: map[string]*calib.Profile{
		"brevity": &calib.Profile{A: stat(0.01), E: stat(0.01)}, "accuracy": &calib.Profile{A: stat(-0.5), E: stat(0.2)},
	}}
	v.Update(tab.FitDoneMsg{Key: k, Report: rep})
	if got := strings.Join(v.Attrs(), ","); got != "accuracy,brevity" || v.Selected() != "accuracy" {
		t.Fatalf("by name: %s, selected %s", got, v.Selected())
	}
	v.Update(tab.MoveMsg{Delta: 5})
	v.Update(tea.KeyPressMsg{Code: 'o', Text: "o"})
	if got := strings.Join(v.Attrs(), ","); got != "accuracy,brevity" || v.Selected() != "brevity" {
		t.Fatalf("by magnitude: %s, selected %s", got, v.Selected())
	}
	f := ansi.Strip(v.View())
	if !strings.Contains(f, "by magnitude") || strings.Contains(f, "f refits") {
		t.Errorf("the view:\n%s", f)
	}
	// m asks the Fit tab; its new settings make the fit stale here.
	if msg, ok := v.Update(tea.KeyPressMsg{Code: 'm', Text: "m"})().(tab.RefitMsg); !ok || !msg.SwitchMetric {
		t.Fatalf("m: %#v", msg)
	}
	v.Update(tab.FitSettingsMsg{Metric: model.MetricPairwise})
	if f := ansi.Strip(v.View()); !strings.Contains(f, "the metric has changed since this fit: f refits") {
		t.Errorf("no stale warning:\n%s", f)
	}
	// A judge without probes has no fit: nothing to profile.
	v.Update(tab.FitDoneMsg{Key: k})
	if v.Report() != nil || len(v.Attrs()) != 0 {
		t.Error("the fit without a report kept its profiles")
	}
}

// The two sign-stability columns say whose they are (issue 46), and each
// value sits under its own header.
func TestStableColumnsNamed(t *testing.T) {
	k := study.Key{Dataset: "d", Judge: "j", BankHash: "h"}
	v := New(&fakeServices{k: k}, DefaultKeyMap())
	v.SetSize(120, 30)
	a, e := stat(-0.5), stat(0.2)
	a.Folds, e.Folds, e.SignStable = []float64{1, 2}, []float64{1, 2}, 2
	rep := &calib.Report{Metric: model.MetricSpearman, Folds: make([]calib.Fold, 2), Profiles: map[string]*calib.Profile{
		"accuracy": &calib.Profile{A: a, E: e},
	}}
	v.Update(tab.FitDoneMsg{Key: k, Report: rep})
	var head, row string
	for _, ln := range strings.Split(ansi.Strip(v.View()), "\n") {
		switch {
		case strings.Contains(ln, "attribute"):
			head = ln
		case strings.Contains(ln, "accuracy") && row == "":
			row = ln
		}
	}
	hr, rr := []rune(head), []rune(row)
	ia, ie := runeIndex(hr, "a stable"), runeIndex(hr, "e stable")
	if ia < 0 || ie < 0 || len(rr) < ie+len("e stable") {
		t.Fatalf("the header does not name a's and e's stable columns:\n%s", head)
	}
	// Right-aligned: each value ends where its header ends.
	if got := string(rr[ia+len("a stable")-3 : ia+len("a stable")]); got != "1/2" {
		t.Errorf("under a stable: %q\n%s\n%s", got, head, row)
	}
	if got := string(rr[ie+len("e stable")-3 : ie+len("e stable")]); got != "2/2" {
		t.Errorf("under e stable: %q\n%s\n%s", got, head, row)
	}
}

// runeIndex is the rune offset of sub in s, or -1.
func runeIndex(s []rune, sub string) int {
	i := strings.Index(string(s), sub)
	if i < 0 {
		return -1
	}
	return len([]rune(string(s)[:i]))
}
