package compare

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// fakeServices is the App as the Compare tab sees it: study k, no
// workspace.
type fakeServices struct{ k study.Key }

func (*fakeServices) Styles() *styles.Styles           { return styles.New(true) }
func (*fakeServices) Context() context.Context         { return context.Background() }
func (*fakeServices) Now() time.Time                   { return time.Time{} }
func (*fakeServices) Store() *store.Store              { return nil }
func (f *fakeServices) Key() (study.Key, bool)         { return f.k, true }
func (f *fakeServices) RequireKey() (study.Key, error) { return f.k, nil }
func (*fakeServices) Versions() tab.Versions           { return &study.Versions{} }

// The scroll stays within the content, moved in Update only: a frame
// changes nothing.
func TestScrollInUpdate(t *testing.T) {
	v := New(&fakeServices{k: study.Key{Dataset: "d", Judge: "j"}}, DefaultKeyMap())
	v.SetSize(60, 8)
	v.fits = []JudgeFit{{Judge: "a", Err: errors.New("one\ntwo")}, {Judge: "b", Err: errors.New("three")}}
	v.gen = 1
	v.sync()
	v.Update(tab.MoveMsg{Delta: 1 << 30})
	at := v.scroll.Offset()
	if n := len(v.lines(v.svc.Styles(), 60-widgets.PaneChromeW, v.Stale())); at != max(n-v.scroll.Height(), 0) {
		t.Fatalf("bottom at %d of %d lines", at, n)
	}
	first := v.View()
	if v.View() != first || v.scroll.Offset() != at {
		t.Error("View moved the scroll")
	}
	v.Update(tab.MoveMsg{Delta: -1})
	if v.scroll.Offset() != max(at-1, 0) {
		t.Errorf("up from the bottom: %d", v.scroll.Offset())
	}
	if !strings.Contains(ansi.Strip(first), "three") {
		t.Errorf("the last page lacks the last line:\n%s", first)
	}
}
