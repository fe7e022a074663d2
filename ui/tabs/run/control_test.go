package run

import (
	"context"
	"testing"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/ratio"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
)

// fakeServices is the App as the Run tab sees it; st is a workspace
// that no command of these tests reads.
type fakeServices struct {
	st    *store.Store
	ds    *model.Dataset
	bank  *banks.Bank
	clock time.Time
	busy  string
}

func (*fakeServices) Styles() *styles.Styles    { return styles.New(true) }
func (*fakeServices) Context() context.Context  { return context.Background() }
func (f *fakeServices) Now() time.Time          { return f.clock }
func (f *fakeServices) Busy() string            { return f.busy }
func (f *fakeServices) Store() *store.Store     { return f.st }
func (f *fakeServices) Dataset() *model.Dataset { return f.ds }
func (f *fakeServices) Bank() *banks.Bank       { return f.bank }
func (*fakeServices) BankSource() string        { return "builtin:quality" }
func (*fakeServices) Judges() JudgeFactory      { return DefaultJudges }
func (*fakeServices) Quitting() bool            { return false }
func (*fakeServices) Current() tab.ID           { return tab.Run }

// The ratio panel is recomputed at most every ratio.Every, or three
// times as long as the last computation took, and never twice at once.
func TestSignalThrottle(t *testing.T) {
	b, err := banks.Builtin("quality")
	if err != nil {
		t.Fatal(err)
	}
	svc := &fakeServices{st: &store.Store{}, clock: time.Unix(0, 0)}
	v := New(svc, DefaultKeyMap(), engineDefaults())
	v.runPlan = &engine.Plan{Spec: engine.Spec{Dataset: &model.Dataset{Name: "d"}, Bank: b, JudgeName: "offline"}}
	v.live = NewLive(b, 9)
	v.live.phase = PhaseRunning
	if v.maybeSignal(true) == nil {
		t.Fatal("first recomputation not started")
	}
	if v.maybeSignal(true) != nil {
		t.Fatal("a second recomputation started while one runs")
	}
	v.onSignal(signalMsg{view: &ratio.View{Took: 400 * time.Millisecond}})
	svc.clock = svc.clock.Add(ratio.Every)
	if v.maybeSignal(false) != nil {
		t.Fatal("recomputed 500 ms after one that took 400 ms; want 1.2 s")
	}
	svc.clock = svc.clock.Add(700 * time.Millisecond)
	if v.maybeSignal(false) == nil {
		t.Fatal("not recomputed 1.2 s after one that took 400 ms")
	}
	v.onSignal(signalMsg{view: &ratio.View{Took: time.Millisecond}})
	svc.clock = svc.clock.Add(ratio.Every - time.Millisecond)
	if v.maybeSignal(false) != nil {
		t.Fatal("recomputed sooner than ratio.Every")
	}
	// The end of the run asks for the final panel at once.
	v.signalFinal = true
	if v.maybeSignal(false) == nil || v.signalFinal {
		t.Fatal("final panel not started")
	}
}

// Without a workspace the estimate says why; a screen of the bank going
// refuses a start.
func TestReplanAndStartRefused(t *testing.T) {
	svc := &fakeServices{}
	v := New(svc, DefaultKeyMap(), engineDefaults())
	if v.Replan() != nil || v.planErr == nil {
		t.Fatalf("replan without a workspace: %v", v.planErr)
	}
	v.plan = &engine.Plan{}
	svc.busy = "a screen of the bank"
	if v.Start() != nil || v.planErr != ErrScreening {
		t.Fatalf("start during a screen: %v", v.planErr)
	}
}
