package ui

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
)

func TestDeltaHist(t *testing.T) {
	h := newDeltaHist(4) // bins of 0.25 over [−4, 4]: 33 bins
	if len(h.bins) != 33 {
		t.Fatalf("%d bins, want 33", len(h.bins))
	}
	for _, d := range []float64{-1, 0, 0, 1, 1, 1, 9, math.NaN(), math.Inf(1)} {
		h.Add(d)
	}
	// NaN and +Inf are ignored; 9 is clamped into the last bin but its
	// value still counts in the mean: (−1+0+0+1+1+1+9)/7 = 11/7.
	if h.n != 7 {
		t.Fatalf("n = %d, want 7", h.n)
	}
	if got, want := h.Mean(), 11.0/7; math.Abs(got-want) > 1e-12 {
		t.Errorf("mean %g, want %g", got, want)
	}
	if h.bins[32] != 1 || h.bins[16] != 2 || h.bins[20] != 3 {
		t.Errorf("bins: %v", h.bins)
	}
	if h.absMax != 9 {
		t.Errorf("absMax %g, want 9", h.absMax)
	}
}

func TestSpark(t *testing.T) {
	for _, tc := range []struct {
		name string
		add  []float64
		w    int
		r    float64
		want string
	}{
		// Integer Δ on ±2 in 7 cells: one cell per value −2…2, centred
		// (one pad each side). Counts −1:1, 0:2, +1:4 → levels
		// (c·8−1)/4 = 1, 3, 7 → ▂ ▄ █.
		{"integers", []float64{-1, 0, 0, 1, 1, 1, 1}, 7, 2, "  ▂▄█  "},
		// Non-integer values spread over w cells on [−1, 1]: −0.75 → cell
		// ⌊0.125·4⌋ = 0, 0.5 → ⌊0.75·4⌋ = 3; one count each → █.
		{"fractions", []float64{-0.75, 0.5}, 4, 1, "█  █"},
		{"empty", nil, 5, 3, "·····"},
	} {
		h := newDeltaHist(5)
		for _, d := range tc.add {
			h.Add(d)
		}
		if got := h.Spark(tc.w, tc.r); got != tc.want {
			t.Errorf("%s: Spark = %q, want %q", tc.name, got, tc.want)
		}
		if got := ansi.StringWidth(h.Spark(tc.w, tc.r)); got != tc.w {
			t.Errorf("%s: width %d, want %d", tc.name, got, tc.w)
		}
	}
}

func TestRatioBar(t *testing.T) {
	for _, tc := range []struct {
		ratio, lo, hi, axis float64
		w                   int
		want                string
	}{
		// Axis [0, 2] in 8 cells of 0.25: the marker is cell ⌊1/0.25⌋ = 4.
		// Ratio 1.5 in [1.2, 1.8]: midpoints 0.125…1.125 < 1.2 → █ (cell 4
		// is the marker), 1.375 ∈ [1.2, 1.5) → ▓, 1.625 ∈ [1.5, 1.8) → ░,
		// 1.875 → space.
		{1.5, 1.2, 1.8, 2, 8, "████│▓░ "},
		// Ratio 0.5 in [0.3, 0.7]: 0.125 → █, 0.375 → ▓, 0.625 → ░.
		{0.5, 0.3, 0.7, 2, 8, "█▓░ │   "},
		{math.NaN(), math.NaN(), math.NaN(), 2, 4, "  │ "},
	} {
		if got := ratioBar(tc.ratio, tc.lo, tc.hi, tc.axis, tc.w); got != tc.want {
			t.Errorf("ratioBar(%g [%g,%g]) = %q, want %q", tc.ratio, tc.lo, tc.hi, got, tc.want)
		}
	}
	if got := ratioAxis(0.4, 1.3); got != 2 {
		t.Errorf("axis of small ratios %g, want 2", got)
	}
	if got := ratioAxis(2.3, math.NaN(), math.Inf(1)); got != 2.5 {
		t.Errorf("axis of 2.3 %g, want 2.5", got)
	}
	// The axis covers every value (issue 17: expected mode reached 12.8
	// on an axis capped at 6).
	for v, want := range map[float64]float64{5.8: 6, 12.8: 13, 40: 40, 42: 45, 123: 130} {
		if got := ratioAxis(v, 1.1); got != want || got < v {
			t.Errorf("axis of %g: %g, want %g", v, got, want)
		}
	}
	for _, tc := range []struct {
		axis float64
		w    int
		want string
	}{
		{2, 8, "0   1  2"},
		{13, 26, "0 1                     13"},
		{2, 3, "0 2"}, // no room for 1 between them
	} {
		if got := ratioTicks(tc.axis, tc.w); got != tc.want {
			t.Errorf("ratioTicks(%g, %d) = %q, want %q", tc.axis, tc.w, got, tc.want)
		}
	}
}

func Example_ratioBar() {
	// A probe that moves scores 1.5× as much as a neutral clause, with a
	// 95% interval [1.2, 1.8], on an axis from 0 to 2 in 16 cells of
	// 0.125: the marker is cell 8; cells whose midpoints (i+½)/8 lie
	// below 1.2 (i ≤ 9) are full, in [1.2, 1.5) (i = 10, 11) half, in
	// [1.5, 1.8) (i = 12, 13) light.
	fmt.Printf("[%s]\n", ratioBar(1.5, 1.2, 1.8, 2, 16))
	// Output:
	// [████████│█▓▓░░  ]
}

// The Run form's text input keeps the editing keys the hand-made editor it
// replaced had, and keeps a value on one line.
func TestFieldInput(t *testing.T) {
	e := newFieldInput()
	e.SetValue("hello world")
	e.CursorEnd()
	e.Focus()
	steps := []struct {
		key  string
		want string
		pos  int
	}{
		{"ctrl+w", "hello ", 6},
		{"home", "hello ", 0},
		{"delete", "ello ", 0},
		{"right", "ello ", 1},
		{"backspace", "llo ", 0},
		{"end", "llo ", 4},
		{"left", "llo ", 3},
		{"ctrl+k", "llo", 3},
		{"ctrl+u", "", 0},
	}
	for _, s := range steps {
		e, _ = e.Update(keyMsg(s.key))
		if e.Value() != s.want || e.Position() != s.pos {
			t.Fatalf("after %s: %q at %d, want %q at %d", s.key, e.Value(), e.Position(), s.want, s.pos)
		}
	}
	e, _ = e.Update(tea.KeyPressMsg{Code: 'é', Text: "é"})
	e, _ = e.Update(tea.PasteMsg{Content: "a\nb\x07c"})
	if e.Value() != "éa bc" {
		t.Fatalf("typed and pasted: %q, want %q", e.Value(), "éa bc")
	}
	e.SetWidth(3)
	e.SetCursor(e.Position())
	if w := ansi.StringWidth(e.View()); w > 4 {
		t.Errorf("view is %d wide, want at most width+1", w)
	}
	// The cursor does not blink: focusing schedules no tick.
	if cmd := e.Focus(); cmd != nil {
		t.Error("focusing the input started a blink")
	}
}

func TestRunFormConfig(t *testing.T) {
	f := newRunForm(engineDefaults())
	cfg, lim, repeats, err := f.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Backend != "offline" || lim.Concurrency != 8 || repeats != 1 {
		t.Fatalf("defaults: %+v %+v %d", cfg, lim, repeats)
	}
	if got := f.JudgeName(cfg); got != "offline" {
		t.Errorf("judge name %q, want offline", got)
	}
	for _, tc := range []struct{ key, val, want string }{
		{fConc, "0", "concurrency: 0, want at least 1"},
		{fRPM, "ten", `rpm: "ten" is not a whole number`},
		{fRepeats, "0", "repeats: 0, want at least 1"},
		{fBackend, "openai", "model: required"},
	} {
		g := newRunForm(engineDefaults())
		g.set(tc.key, tc.val)
		if _, _, _, err := g.Config(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%q: error %v, want %q", tc.key, tc.val, err, tc.want)
		}
	}
	g := newRunForm(engineDefaults())
	g.set(fBackend, "openai")
	g.set(fModel, "gpt-4o-mini")
	g.set(fMode, "expected")
	cfg, _, _, err = g.Config()
	if err != nil {
		t.Fatal(err)
	}
	if got := g.JudgeName(cfg); got != "gpt-4o-mini-expected" {
		t.Errorf("judge name %q, want gpt-4o-mini-expected", got)
	}
}

func TestLiveRunDeltaWaitsForBaseline(t *testing.T) {
	b, _ := banks.Builtin("quality")
	lr := newLiveRun(b, 9)
	res := func(probe string, score float64) engine.Event {
		return engine.Event{Kind: engine.EventResult, Result: engine.Result{Context: "c", Candidate: "k", Probe: probe, Score: score, HasScore: true}}
	}
	lr.Apply(res("accuracy:+", 7)) // before its baseline
	lr.Apply(res("accuracy:-", 4))
	if lr.plus["accuracy"].n != 0 {
		t.Fatal("a Δ was counted before the baseline arrived")
	}
	lr.Apply(res("baseline", 5))
	lr.Apply(res("accuracy:+", 6)) // after: Δ = 1
	if p := lr.plus["accuracy"]; p.n != 2 || p.sum != 2+1 {
		t.Errorf("Δ+: n %d sum %g, want 2 and 3", p.n, p.sum)
	}
	if m := lr.minus["accuracy"]; m.n != 1 || m.sum != -1 {
		t.Errorf("Δ−: n %d sum %g, want 1 and −1", m.n, m.sum)
	}
	got := lr.Recent(10)
	if len(got) != 4 || got[0].Probe != "accuracy:+" || !got[0].HasDelta || got[0].Delta != 1 || got[3].Probe != "accuracy:+" {
		t.Errorf("recent, newest first: %+v", got)
	}
	for i := range maxRecent + 5 {
		lr.Apply(res("neutral:fair", float64(i)))
	}
	if r := lr.Recent(maxRecent + 10); len(r) != maxRecent || r[0].Score != maxRecent+4 {
		t.Errorf("ring: %d results, newest %g", len(r), r[0].Score)
	}
}

// manualWindow is a coalescing window that ends only when the test sends
// on it: the drain's batches depend on the order of events, not on time.
type manualWindow chan time.Time

func (w manualWindow) open() (<-chan time.Time, func() bool) { return w, func() bool { return true } }

// drainEvents turns a burst of events into few messages: every event
// that arrives before the window ends goes into one batch, a batch stops
// at maxEventBatch, and a closed channel is reported.
func TestDrainEventsCoalesces(t *testing.T) {
	never := manualWindow(make(chan time.Time))
	// A queued burst and the close: one message, closed.
	ch := make(chan engine.Event, 5000)
	for i := range 5000 {
		ch <- engine.Event{Kind: engine.EventResult, Progress: engine.Progress{Done: i + 1}}
	}
	close(ch)
	m := drainEventsIn(nil, ch, never.open)().(runEventsMsg)
	if len(m.events) != 5000 || !m.closed || m.events[4999].Progress.Done != 5000 {
		t.Fatalf("burst: %d events, closed %v; want 5000 in order and closed", len(m.events), m.closed)
	}
	// More than a batch holds: the batch stops at maxEventBatch, the rest
	// comes in the next message.
	ch = make(chan engine.Event, maxEventBatch+3)
	for range maxEventBatch + 3 {
		ch <- engine.Event{}
	}
	close(ch)
	if m := drainEventsIn(nil, ch, never.open)().(runEventsMsg); len(m.events) != maxEventBatch || m.closed {
		t.Errorf("full batch: %d events, closed %v; want %d, open", len(m.events), m.closed, maxEventBatch)
	}
	if m := drainEventsIn(nil, ch, never.open)().(runEventsMsg); len(m.events) != 3 || !m.closed {
		t.Errorf("rest: %d events, closed %v; want 3, closed", len(m.events), m.closed)
	}
	// A trickle: the events that arrive before the window ends form one
	// message; the end of the window sends it.
	slow := make(chan engine.Event) // unbuffered: a send returns once the drain has the event
	w := manualWindow(make(chan time.Time))
	got := make(chan runEventsMsg)
	for round := range 2 {
		go func() { got <- drainEventsIn(nil, slow, w.open)().(runEventsMsg) }()
		for range 3 {
			slow <- engine.Event{}
		}
		w <- time.Time{}
		if m := <-got; len(m.events) != 3 || m.closed {
			t.Errorf("trickle round %d: %d events, closed %v; want 3, open", round, len(m.events), m.closed)
		}
	}
	close(slow)
	if m := drainEventsIn(nil, slow, w.open)().(runEventsMsg); len(m.events) != 0 || !m.closed {
		t.Errorf("after the close: %+v", m)
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{humanCount(999), "999"}, {humanCount(1500), "1.5k"}, {humanCount(2_500_000), "2.5M"},
		{shortDuration(0), "0s"}, {shortDuration(850 * time.Millisecond), "850ms"},
		{shortDuration(42 * time.Second), "42s"}, {shortDuration(185 * time.Second), "3m05s"},
		{shortDuration(130 * time.Minute), "2h10m"},
		{signed(1, true), "+1"}, {signed(-0.5, true), "-0.5"}, {signed(0.01, true), "0"}, {signed(1, false), ""},
		{compact(7), "7"}, {compact(6.5), "6.5"}, {compact(math.NaN()), "—"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func engineDefaults() judge.Config { return judge.Defaults() }

func TestWrapSpaces(t *testing.T) {
	for _, tc := range []struct {
		s    string
		w    int
		want []string
	}{
		// A minus sign stays with its number; the spaces at a break go.
		{"folds -0.1  -0.25", 8, []string{"folds", "-0.1", "-0.25"}},
		{"a_k mean -0.04  min -0.08", 14, []string{"a_k mean -0.04", "min -0.08"}},
		{"a  b", 4, []string{"a  b"}},
		{"a  b", 3, []string{"a", "b"}},
		{"abcdefgh x", 4, []string{"abc…", "x"}},
		{"", 5, []string{""}},
	} {
		if got := wrapSpaces(tc.s, tc.w); !slices.Equal(got, tc.want) {
			t.Errorf("wrapSpaces(%q, %d) = %q, want %q", tc.s, tc.w, got, tc.want)
		}
	}
}
