package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prism-eval/prism/ui/ratio"
	runtab "github.com/prism-eval/prism/ui/tabs/run"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/store"
)

// demoStudy is the demo study in a fresh workspace under t.TempDir(): a
// copy of the package's demo workspace (the dataset stored, no answers).
func demoStudy(t testing.TB) Session {
	t.Helper()
	return studyOn(t, copyFixture(t, fixtureDemo))
}

// studyOn opens the workspace file path (closed at the end of the test)
// as the demo study: the demo dataset, the quality bank, the offline judge.
func studyOn(t testing.TB, path string) Session {
	t.Helper()
	b, err := banks.Builtin("quality")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ds := datasets.Demo()
	return Session{Dataset: ds, Bank: b, BankSource: "builtin:quality", Judge: "offline (simulator)", Demo: true,
		Store: st, Datasets: []string{ds.Name}}
}

// The workspaces tests start from. Each is built once per test binary by
// the same code paths a user's session takes, then copied into every test
// that uses it, so tests share the costly setup (an offline screen of the
// demo bank stores 2,280 answers) without sharing any state.
const (
	fixtureDemo     = "demo"      // the demo dataset stored, nothing answered
	fixtureScreened = "screened"  // plus the Bank tab's screen (both runs of every condition)
	fixtureTwoJudge = "two-judge" // plus the imported judge "swapped" (see twoJudgeDemo)
	// The screened demo plus the offline judge's rubric studies (SAJA
	// broad, SAJA granular, G-Eval), as `prism run --rubric` stores them.
	fixtureRubric = "rubric"
	// fixtureRubric plus the imported judge "swapped" whose scores hold
	// SAJA broad's ratings too (see rubricTwoJudgeDemo).
	fixtureRubricTwoJudge = "rubric-two-judge"
	// fixtureTwoJudge plus the imported judge "bare", baseline answers
	// only (see importBare): a judge without probes.
	fixtureAgree = "agree"
)

var fixtures = struct {
	sync.Mutex
	m map[string]*fixture
}{m: map[string]*fixture{}}

// fixture is one workspace file's bytes, built on first use.
type fixture struct {
	once sync.Once
	data []byte
	err  error
}

// buildFixture makes the named fixture in dir and returns the workspace
// path after closing every handle on it.
func buildFixture(name, dir string) (string, error) {
	switch name {
	case fixtureDemo:
		path := filepath.Join(dir, "demo.db")
		st, err := store.Open(context.Background(), path)
		if err != nil {
			return "", err
		}
		err = st.PutDataset(context.Background(), datasets.Demo(), false)
		return path, errors.Join(err, st.Close())
	case fixtureScreened:
		return buildOn(dir, fixtureDemo, func(a *App) error {
			drive(a, a.Init())
			press(a, "2", "s")
			if a.bank.Screening() {
				return errors.New("the screen did not finish")
			}
			return nil
		})
	case fixtureTwoJudge:
		return buildOn(dir, fixtureScreened, importSwapped)
	case fixtureRubric:
		return buildOn(dir, fixtureScreened, runRubrics)
	case fixtureRubricTwoJudge:
		return buildOn(dir, fixtureRubric, importSwappedRubric)
	case fixtureAgree:
		return buildOn(dir, fixtureTwoJudge, importBare)
	}
	return "", fmt.Errorf("no fixture %q", name)
}

// buildOn copies fixture base into dir, runs step on a 100×30 App over it
// and closes the workspace.
func buildOn(dir, base string, step func(*App) error) (string, error) {
	data, err := fixtureBytes(base)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "demo.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", err
	}
	st, err := store.Open(context.Background(), path)
	if err != nil {
		return "", err
	}
	b, err := banks.Builtin("quality")
	if err != nil {
		return "", errors.Join(err, st.Close())
	}
	ds := datasets.Demo()
	a := New(Session{Dataset: ds, Bank: b, BankSource: "builtin:quality", Judge: "offline (simulator)", Demo: true,
		Store: st, Datasets: []string{ds.Name}})
	a.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	err = step(a)
	return path, errors.Join(err, st.Close())
}

// fixtureBytes returns the bytes of the named workspace, building it on
// first use.
func fixtureBytes(name string) ([]byte, error) {
	fixtures.Lock()
	f := fixtures.m[name]
	if f == nil {
		f = &fixture{}
		fixtures.m[name] = f
	}
	fixtures.Unlock()
	f.once.Do(func() {
		dir, err := os.MkdirTemp("", "prism-ui-fixture-")
		if err != nil {
			f.err = err
			return
		}
		defer os.RemoveAll(dir)
		path, err := buildFixture(name, dir)
		if err != nil {
			f.err = fmt.Errorf("fixture %s: %w", name, err)
			return
		}
		if _, err := os.Stat(path + "-wal"); err == nil {
			f.err = fmt.Errorf("fixture %s: the closed workspace left a WAL file", name)
			return
		}
		f.data, f.err = os.ReadFile(path)
	})
	return f.data, f.err
}

// copyFixture writes the named workspace into t.TempDir() and returns its
// path.
func copyFixture(t testing.TB, name string) string {
	t.Helper()
	data, err := fixtureBytes(name)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "demo.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fixtureApp is an App at w×h on a copy of the named workspace, its Init
// commands run.
func fixtureApp(t testing.TB, name string, w, h int) *App {
	t.Helper()
	a := New(studyOn(t, copyFixture(t, name)))
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drive(a, a.Init())
	return a
}

func demoApp(t testing.TB, w, h int) *App {
	t.Helper()
	a := New(demoStudy(t))
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return a
}

// keyMsg builds the key press a terminal sends for a key name or text.
func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+u":
		return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// press sends keys and runs the commands they return to completion.
func press(a *App, keys ...string) (quit bool) {
	for _, k := range keys {
		_, cmd := a.Update(keyMsg(k))
		if drive(a, cmd) {
			return true
		}
	}
	return false
}

// typeText types s one character at a time.
func typeText(a *App, s string) {
	for _, r := range s {
		a.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// drive runs cmd and every command its messages lead to, in order, on
// this goroutine: the program's loop without the program. It reports
// whether a command asked to quit.
func drive(a *App, cmd tea.Cmd) (quit bool) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
			quit = true
		default:
			_, next := a.Update(msg)
			queue = append(queue, next)
		}
	}
	return quit
}

// frame is the plain text of the current view.
func frame(a *App) string { return ansi.Strip(a.View().Content) }

// gatedJudge answers like the offline judge for its first `open` calls,
// then blocks every call until release is closed or the call's context
// ends: a run that stays in flight for as long as a test needs.
type gatedJudge struct {
	inner   judge.Judge
	mu      sync.Mutex
	open    int
	release chan struct{}
}

func (g *gatedJudge) Name() string { return g.inner.Name() }

func (g *gatedJudge) Score(ctx context.Context, req banks.Request) (judge.Result, error) {
	g.mu.Lock()
	pass := g.open > 0
	if pass {
		g.open--
	}
	g.mu.Unlock()
	if !pass {
		select {
		case <-g.release:
		case <-ctx.Done():
			return judge.Result{}, &judge.Error{Kind: judge.KindCanceled, Msg: ctx.Err().Error()}
		}
	}
	return g.inner.Score(ctx, req)
}

// gate makes a's runs use one gated judge that lets `open` calls through.
func gate(t testing.TB, a *App, open int) *gatedJudge {
	t.Helper()
	g := &gatedJudge{open: open, release: make(chan struct{})}
	a.newJudges = func(p *engine.Plan, lim *engine.Limiter) ([]judge.Judge, error) {
		js, err := engine.PlanJudges(p, lim)
		if err != nil {
			return nil, err
		}
		g.inner = js[0]
		return []judge.Judge{g}, nil
	}
	return g
}

// runProgram runs a in a real Bubble Tea program at 120×36 and returns it
// with a function that waits up to timeout for a text in its output.
// programDeadline bounds each wait of a whole-program test. It is a
// deadline, not a pause: a wait ends as soon as its text appears, and the
// bound only has to exceed the slowest machine the suite runs on (the
// race detector on a busy 2-core machine took over 15 s for a demo run).
const programDeadline = 3 * time.Minute

func runProgram(t *testing.T, a *App, timeout time.Duration) (*teatest.TestModel, func(string)) {
	t.Helper()
	tm := teatest.NewTestModel(t, a, teatest.WithInitialTermSize(120, 36))
	return tm, func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(out []byte) bool {
			return bytes.Contains(out, []byte(what))
		}, teatest.WithDuration(timeout), teatest.WithCheckInterval(10*time.Millisecond))
	}
}

// finishedRun is the demo App at w×h after a whole offline run with one
// worker (so that the order of the results is fixed).
func finishedRun(t *testing.T, w, h int) *App {
	t.Helper()
	a := demoApp(t, w, h)
	drive(a, a.Init())
	setConcurrency(a, 1)
	press(a, "s")
	if a.run.Live() == nil || a.run.Live().Phase() != runtab.PhaseDone {
		t.Fatalf("run not done: %+v", a.run.Live())
	}
	return a
}

// goldenFrames collects the frames of one App at every golden size, so
// that one costly flow (a screen, a run) serves all sizes; the frame is
// drawn from the state and the current size alone.
type goldenFrames struct {
	names  []string
	frames map[string]string // "WxH/name" → frame
}

// capture draws a at every golden size under name and leaves it at the
// first size.
func (g *goldenFrames) capture(a *App, name string) {
	if g.frames == nil {
		g.frames = map[string]string{}
	}
	g.names = append(g.names, name)
	for _, size := range goldenSizes {
		a.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		g.frames[fmt.Sprintf("%dx%d/%s", size[0], size[1], name)] = frame(a)
	}
	a.Update(tea.WindowSizeMsg{Width: goldenSizes[0][0], Height: goldenSizes[0][1]})
}

// check compares every captured frame with its golden file
// (testdata/TEST/WxH/name.golden; testdata/TEST/WxH.golden for the name "").
func (g *goldenFrames) check(t *testing.T) {
	t.Helper()
	for _, size := range goldenSizes {
		sz := fmt.Sprintf("%dx%d", size[0], size[1])
		t.Run(sz, func(t *testing.T) {
			for _, name := range g.names {
				if name == "" {
					golden.RequireEqual(t, g.frames[sz+"/"])
					continue
				}
				t.Run(name, func(t *testing.T) { golden.RequireEqual(t, g.frames[sz+"/"+name]) })
			}
		})
	}
}

// fitStatus and fitStatusErr are the Fit tab's status line and whether
// it is an error.
func fitStatus(a *App) string  { s, _ := a.fit.Status(); return s }
func fitStatusErr(a *App) bool { _, e := a.fit.Status(); return e }

// runSignal and runSignalErr are the Run tab's ratio panel and why it
// failed.
func runSignal(a *App) *ratio.View {
	s, _ := a.run.Signal()
	return s
}

func runSignalErr(a *App) error {
	_, err := a.run.Signal()
	return err
}
