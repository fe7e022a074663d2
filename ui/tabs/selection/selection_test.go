package selection

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/calib/selection"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/jobs"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
)

// fakeServices is the App as the Select tab sees it, with no workspace.
type fakeServices struct{ key study.Key }

func (*fakeServices) Styles() *styles.Styles   { return styles.New(true) }
func (*fakeServices) Context() context.Context { return context.Background() }
func (*fakeServices) Now() time.Time           { return time.Time{} }
func (*fakeServices) Store() *store.Store      { return nil }
func (f *fakeServices) Key() (study.Key, bool) { return f.key, f.key != study.Key{} }
func (*fakeServices) RequireKey() (study.Key, error) {
	return study.Key{}, tab.ErrNoWorkspace
}
func (*fakeServices) Judge() string { return "offline (simulator)" }

func keyPress(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

// report is a selection of n units.
func report(n int) *selection.Report {
	rep := &selection.Report{Metric: "spearman", NContexts: 10, Vanilla: 0.3}
	for i := range n {
		u := string(rune('a' + i))
		rep.Units = append(rep.Units, u)
		rep.Omission = append(rep.Omission, selection.Omission{Unit: u, Change: -0.01})
		rep.Forward = append(rep.Forward, selection.ForwardStep{Added: u, Improvement: 0.01})
	}
	return rep
}

// Without a workspace r and b say why; the hint names the session's judge.
func TestKeysWithoutWorkspace(t *testing.T) {
	v := New(&fakeServices{}, DefaultKeyMap())
	v.SetSize(100, 20)
	if f := ansi.Strip(v.View()); !strings.Contains(f, "r runs the selection on judge offline") {
		t.Fatalf("no hint:\n%s", f)
	}
	if v.Update(keyPress('r')) != nil || !errors.Is(v.Selection().Err, tab.ErrNoWorkspace) {
		t.Fatalf("r: err %v", v.Selection().Err)
	}
	if v.Update(keyPress('b')) != nil || !v.BudgetShown() || !errors.Is(v.BudgetJob().Err, tab.ErrNoWorkspace) {
		t.Fatalf("b: shown %v, err %v", v.BudgetShown(), v.BudgetJob().Err)
	}
	if len(v.Keys()) != 2 || v.Editing() || v.Badge() != "" {
		t.Error("keys, editing or badge")
	}
}

// The right pane scrolls in Update, within its tables; View moves
// nothing.
func TestScrollInUpdate(t *testing.T) {
	key := study.Key{Dataset: "d", Judge: "j", BankHash: "h"}
	v := New(&fakeServices{key: key}, DefaultKeyMap())
	v.SetSize(100, 14)
	j := jobs.New[*selection.Report](key, func() {})
	j.Res = report(12)
	v.Selection().Start(j)
	v.Update(jobs.DoneMsg[*selection.Report]{Job: j})
	if v.Report() != j.Res {
		t.Fatal("the report was not taken")
	}
	v.Update(tab.FocusMsg{Right: true})
	v.Update(tab.MoveMsg{Delta: 1 << 30})
	bottom := v.scroll.Offset()
	if bottom == 0 {
		t.Fatal("the tables did not scroll")
	}
	before := ansi.Strip(v.View())
	if v.scroll.Offset() != bottom || ansi.Strip(v.View()) != before {
		t.Error("View moved the scroll")
	}
	if !strings.Contains(before, "+ l") {
		t.Errorf("the bottom does not show the last step:\n%s", before)
	}
	v.Update(tab.MoveMsg{Delta: -1})
	if v.scroll.Offset() != bottom-1 {
		t.Errorf("up from the bottom: offset %d, want %d", v.scroll.Offset(), bottom-1)
	}
}
