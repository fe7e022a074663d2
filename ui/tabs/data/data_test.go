package data

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
)

// fakeServices is the App as the Data tab sees it, with no workspace.
type fakeServices struct{ loaded []string }

func (*fakeServices) Styles() *styles.Styles                       { return styles.New(true) }
func (*fakeServices) Context() context.Context                     { return context.Background() }
func (*fakeServices) Now() time.Time                               { return time.Time{} }
func (*fakeServices) Window() (w, h, body int)                     { return 100, 30, 26 }
func (*fakeServices) Store() *store.Store                          { return nil }
func (*fakeServices) ImportDir() string                            { return "." }
func (*fakeServices) CalibratorPath() string                       { return "cal.json" }
func (*fakeServices) CalibratorLines(*styles.Styles, int) []string { return nil }
func (f *fakeServices) LoadCalibrator(path string) tea.Cmd {
	f.loaded = append(f.loaded, path)
	return nil
}

func tinyDataset() *model.Dataset {
	return &model.Dataset{Name: "tiny", Contexts: []model.Context{
		{ID: "c1", Source: "Source one.", Candidates: []model.Candidate{{ID: "a", Text: "Alpha.", Human: 1}, {ID: "b", Text: "Beta.", Human: 2}}},
		{ID: "c2", Source: "Source two.", Candidates: []model.Candidate{{ID: "a", Text: "Gamma.", Human: 3}}},
	}}
}

func TestTabNavigation(t *testing.T) {
	v := New(&fakeServices{}, DefaultKeyMap(), tab.DialogKeys{}, tinyDataset())
	v.SetSize(100, 26)
	if v.Context().ID != "c1" || v.Candidate().ID != "a" {
		t.Fatalf("starts on %s/%s", v.Context().ID, v.Candidate().ID)
	}
	v.Update(tab.FocusMsg{Right: true})
	v.Update(tab.MoveMsg{Delta: 1})
	if v.Candidate().ID != "b" || v.StepCandidate(1) {
		t.Fatalf("candidate %s; stepped past the end", v.Candidate().ID)
	}
	v.Update(tab.FocusMsg{})
	v.Update(tab.MoveMsg{Delta: 1})
	if v.Context().ID != "c2" || v.Candidate().ID != "a" {
		t.Fatalf("the next context starts on its first candidate: %s/%s", v.Context().ID, v.Candidate().ID)
	}
	if !v.SelectCandidate("c1", "b") || v.SelectCandidate("c9", "a") {
		t.Fatal("SelectCandidate")
	}
	f := ansi.Strip(v.View())
	for _, want := range []string{"Contexts · 2", "Candidates of c1 · 2", "Beta.", "Source one."} {
		if !strings.Contains(f, want) {
			t.Errorf("the view lacks %q:\n%s", want, f)
		}
	}
	if v.Context().ID != "c1" || v.Candidate().ID != "b" {
		t.Error("View moved the cursor")
	}
}

func TestTabKeys(t *testing.T) {
	svc := &fakeServices{}
	v := New(svc, DefaultKeyMap(), tab.DialogKeys{}, tinyDataset())
	v.SetSize(100, 26)
	cmd := v.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if msg, ok := cmd().(tab.InspectMsg); !ok || msg.Context != "c1" || msg.Candidate != "a" || msg.Back != tab.Data {
		t.Errorf("enter: %#v", cmd())
	}
	// No workspace: i and L say so, d does nothing.
	for _, k := range []rune{'i', 'L'} {
		v.SetStatus("", false)
		if cmd := v.Update(tea.KeyPressMsg{Code: k, Text: string(k)}); cmd != nil {
			t.Errorf("%c without a workspace gave a command", k)
		}
		if s, isErr := v.Status(); !isErr || s != tab.ErrNoWorkspace.Error() {
			t.Errorf("%c: status %q", k, s)
		}
	}
	if v.Editing() || len(v.Keys()) != 4 || v.Badge() != "" {
		t.Error("the tab edits, or its keys or badge are wrong")
	}
}

// A benchmark is offered the name the CLI stores it under (prism data
// import topicalchat FILE stores "topicalchat"), not its file's name; a
// generic format offers the file's name.
func TestImportOffersBenchmarkName(t *testing.T) {
	for _, tc := range []struct{ format, loaded, path, want string }{
		{datasets.FormatTopicalChat, "topical_chat", "/d/topical_chat.json", "topicalchat"},
		{datasets.FormatSummEval, "data", "/d/data.json", "summeval"},
		{datasets.FormatJSONL, "topical_chat", "/d/topical_chat.jsonl", "topical_chat"},
	} {
		if got := defaultDatasetName(tc.format, tc.loaded, tc.path); got != tc.want {
			t.Errorf("%s %s: offered %q, want %q", tc.format, tc.path, got, tc.want)
		}
	}
}
