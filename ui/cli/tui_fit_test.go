package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/ui"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// prism fit and the TUI's Fit tab on the same study give the same report,
// field by field: both are study.Fit of the study study.Pick names.
func TestFitCommandEqualsFitTab(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "quality", "--backend", "offline")
	clitest.MustRun(t, "screen", "--workspace", ws, "--bank", "quality", "--backend", "offline") // extra runs: neither reads them

	app := openApp(t, ws)
	if app.FitReport() != nil {
		t.Fatal("a fit before any was made")
	}
	out, _ := clitest.MustRun(t, "fit", "--json", "--workspace", ws, "--judge", "offline") // the defaults, as the tab's
	var cli *calib.Report
	if err := json.Unmarshal([]byte(out), &cli); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"5", "f"} {
		_, cmd := app.Update(tea.KeyPressMsg{Code: rune(k[0]), Text: k})
		drive(app, cmd)
	}
	tab := app.FitReport()
	if tab == nil {
		t.Fatal("the Fit tab has no report after f")
	}
	a, b := fields(t, cli), fields(t, tab)
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range a {
			if !yield(k) {
				return
			}
		}
	}) {
		if !reflect.DeepEqual(a[k], b[k]) {
			t.Errorf("%s: prism fit %.200s, Fit tab %.200s", k, a[k], b[k])
		}
	}
	if len(a) != len(b) {
		t.Errorf("prism fit's report has %d fields, the Fit tab's %d", len(a), len(b))
	}
	if tab.Study == nil || tab.Study.Runs != "planned" || tab.Study.RunsPerContext != [2]int{1, 1} {
		t.Errorf("the Fit tab's study: %+v", tab.Study)
	}
}

// fields is a report's JSON fields, each as its JSON text.
func fields(t *testing.T, rep *calib.Report) map[string]string {
	t.Helper()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

// openApp opens the TUI on the workspace ws, initialized, in a
// 120×40 window.
func openApp(t *testing.T, ws string) *ui.App {
	t.Helper()
	s, cleanup, err := openStudy(context.Background(), ws, "", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	app := ui.New(s)
	drive(app, app.Init())
	app.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return app
}

// drive runs cmd and every command its messages lead to, in order, on
// this goroutine: the program's loop without the program.
func drive(app *ui.App, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil, tea.QuitMsg:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			_, next := app.Update(msg)
			queue = append(queue, next)
		}
	}
}

// The TUI opens on the study's newest stored fit (prism fit stored it),
// and says when the study's answers changed since.
func TestTUIOpensOnStoredFit(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "quality", "--backend", "offline")
	out, _ := clitest.MustRun(t, "fit", "--json", "--workspace", ws)
	open := func() *ui.App {
		s, cleanup, err := openStudy(context.Background(), ws, "", "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cleanup)
		app := ui.New(s)
		app.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		drive(app, app.Init())
		return app
	}
	app := open()
	if rep := app.FitReport(); rep == nil {
		t.Fatal("the TUI did not open on the stored fit")
	} else if b, _ := json.Marshal(rep); !jsonEqual(t, b, []byte(out)) {
		t.Errorf("the stored fit is not prism fit's:\n%.300s\n%.300s", b, out)
	}
	app.Update(tea.KeyPressMsg{Code: '5', Text: "5"})
	if v := app.View().Content; !strings.Contains(v, "stored fit #1 of this study") {
		t.Errorf("the Fit tab does not say the fit is stored:\n%s", v)
	}
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "quality", "--backend", "offline", "--repeats", "2")
	app = open()
	app.Update(tea.KeyPressMsg{Code: '5', Text: "5"})
	if v := app.View().Content; !strings.Contains(v, "the study's answers changed since it was fitted") {
		t.Errorf("the Fit tab does not mark the stored fit stale:\n%s", v)
	}
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}
