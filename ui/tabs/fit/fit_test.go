package fit

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
)

// fakeServices is the App as the Fit tab sees it: study k at version
// 0, no workspace.
type fakeServices struct{ k study.Key }

func (*fakeServices) Styles() *styles.Styles           { return styles.New(true) }
func (*fakeServices) Context() context.Context         { return context.Background() }
func (*fakeServices) Now() time.Time                   { return time.Time{} }
func (*fakeServices) Store() *store.Store              { return nil }
func (f *fakeServices) Key() (study.Key, bool)         { return f.k, true }
func (f *fakeServices) RequireKey() (study.Key, error) { return f.k, nil }
func (*fakeServices) Versions() tab.Versions           { return &study.Versions{} }
func (*fakeServices) SessionJudge() string             { return "offline" }
func (*fakeServices) CalibratorDir() string            { return "." }

// msgs runs cmd and the batches it makes, and returns the messages.
func msgs(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, msgs(c)...)
		}
		return out
	default:
		return []tea.Msg{msg}
	}
}

// A stored fit of the study is shown with its settings and told to the
// tabs that follow the Fit tab; the scroll moves in Update only.
func TestStoredFit(t *testing.T) {
	k := study.Key{Dataset: "d", Judge: "j", BankHash: "h"}
	v := New(&fakeServices{k: k}, DefaultKeyMap(), tab.DialogKeys{}, "out")
	v.SetSize(100, 12)
	van := &calib.MethodResult{Mean: 0.5, CI: [2]float64{0.4, 0.6}}
	rep := &calib.Report{Metric: model.MetricPairwise, Methods: calib.Methods{Vanilla: van, PRISM: van}, Folds: make([]calib.Fold, 3)}
	out := msgs(v.Update(storedMsg{key: k, stored: &study.Stored{ID: 7, Report: rep}}))
	var done tab.FitDoneMsg
	var set tab.FitSettingsMsg
	for _, m := range out {
		switch m := m.(type) {
		case tab.FitDoneMsg:
			done = m
		case tab.FitSettingsMsg:
			set = m
		}
	}
	if done.Report != rep || done.Stored == nil || done.Key != k || set.Metric != model.MetricPairwise || v.Report() != rep {
		t.Fatalf("stored fit: %d messages, done %+v, settings %+v", len(out), done, set)
	}
	f := ansi.Strip(v.View())
	if !strings.Contains(f, "stored fit #7 of this study") || !strings.Contains(f, "Fit · pairwise") {
		t.Errorf("the view:\n%s", f)
	}
	v.Update(tab.MoveMsg{Delta: 1 << 30})
	at := v.scroll.Offset()
	if at == 0 || v.View() != v.View() || v.scroll.Offset() != at {
		t.Errorf("scroll at %d after a frame %d", at, v.scroll.Offset())
	}
	// S needs a fresh fit's design.
	v.Update(tea.KeyPressMsg{Code: 'S', Text: "S"})
	if s, isErr := v.Status(); !isErr || s != "no calibrator to save yet: f fits first" {
		t.Errorf("S on a stored fit: %q", s)
	}
}
