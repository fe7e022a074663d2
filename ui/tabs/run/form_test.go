package run

import (
	"strings"
	"testing"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
)

func engineDefaults() judge.Config { return judge.Defaults() }

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
		{FieldConc, "0", "concurrency: 0, want at least 1"},
		{FieldRPM, "ten", `rpm: "ten" is not a whole number`},
		{FieldRepeats, "0", "repeats: 0, want at least 1"},
		{FieldBackend, "openai", "model: required"},
	} {
		g := newRunForm(engineDefaults())
		g.set(tc.key, tc.val)
		if _, _, _, err := g.Config(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%q: error %v, want %q", tc.key, tc.val, err, tc.want)
		}
	}
	g := newRunForm(engineDefaults())
	g.set(FieldBackend, "openai")
	g.set(FieldModel, "gpt-4o-mini")
	g.set(FieldMode, "expected")
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
	lr := NewLive(b, 9)
	res := func(probe string, score float64) engine.Event {
		return engine.Event{Kind: engine.EventResult, Result: engine.Result{Context: "c", Candidate: "k", Probe: probe, Score: score, HasScore: true}}
	}
	lr.Apply(res("accuracy:+", 7)) // before its baseline
	lr.Apply(res("accuracy:-", 4))
	if lr.plus["accuracy"].N() != 0 {
		t.Fatal("a Δ was counted before the baseline arrived")
	}
	lr.Apply(res("baseline", 5))
	lr.Apply(res("accuracy:+", 6)) // after: Δ = 1
	if p := lr.plus["accuracy"]; p.N() != 2 || p.Mean() != 1.5 {
		t.Errorf("Δ+: n %d mean %g, want 2 and 1.5", p.N(), p.Mean())
	}
	if m := lr.minus["accuracy"]; m.N() != 1 || m.Mean() != -1 {
		t.Errorf("Δ−: n %d mean %g, want 1 and −1", m.N(), m.Mean())
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

// Drain turns a burst of events into few messages: every event
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
	m := drainEventsIn(nil, ch, never.open)().(EventsMsg)
	if len(m.Events) != 5000 || !m.Closed || m.Events[4999].Progress.Done != 5000 {
		t.Fatalf("burst: %d events, closed %v; want 5000 in order and closed", len(m.Events), m.Closed)
	}
	// More than a batch holds: the batch stops at maxEventBatch, the rest
	// comes in the next message.
	ch = make(chan engine.Event, maxEventBatch+3)
	for range maxEventBatch + 3 {
		ch <- engine.Event{}
	}
	close(ch)
	if m := drainEventsIn(nil, ch, never.open)().(EventsMsg); len(m.Events) != maxEventBatch || m.Closed {
		t.Errorf("full batch: %d events, closed %v; want %d, open", len(m.Events), m.Closed, maxEventBatch)
	}
	if m := drainEventsIn(nil, ch, never.open)().(EventsMsg); len(m.Events) != 3 || !m.Closed {
		t.Errorf("rest: %d events, closed %v; want 3, closed", len(m.Events), m.Closed)
	}
	// A trickle: the events that arrive before the window ends form one
	// message; the end of the window sends it.
	slow := make(chan engine.Event) // unbuffered: a send returns once the drain has the event
	w := manualWindow(make(chan time.Time))
	got := make(chan EventsMsg)
	for round := range 2 {
		go func() { got <- drainEventsIn(nil, slow, w.open)().(EventsMsg) }()
		for range 3 {
			slow <- engine.Event{}
		}
		w <- time.Time{}
		if m := <-got; len(m.Events) != 3 || m.Closed {
			t.Errorf("trickle round %d: %d events, closed %v; want 3, open", round, len(m.Events), m.Closed)
		}
	}
	close(slow)
	if m := drainEventsIn(nil, slow, w.open)().(EventsMsg); len(m.Events) != 0 || !m.Closed {
		t.Errorf("after the close: %+v", m)
	}
}
