package ui

import (
	"context"
	"strings"
	"testing"

	runtab "github.com/prism-eval/prism/ui/tabs/run"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
)

// deadJudge fails every call as a server that refuses connections does.
type deadJudge struct{}

func (deadJudge) Name() string { return "dead" }
func (deadJudge) Score(context.Context, banks.Request) (judge.Result, error) {
	e := &judge.Error{Kind: judge.KindNetwork, Msg: "dial tcp 127.0.0.1:1: connect: connection refused"}
	return judge.Result{Err: e}, e
}

// TestRunPausesWhenServerLooksDown: in the TUI the circuit breaker pauses
// the run and the Run tab says why; p resumes it.
func TestRunPausesWhenServerLooksDown(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	drive(a, a.Init())
	setConcurrency(a, 1)
	a.newJudges = func(*engine.Plan, *engine.Limiter) ([]judge.Judge, error) {
		return []judge.Judge{deadJudge{}}, nil
	}
	_, cmd := a.Update(keyMsg("s"))
	a.Update(cmd()) // runStartedMsg
	if a.run.Handle() == nil {
		t.Fatalf("run did not start: %v", a.run.Live().Err())
	}
	defer stopRun(t, a)
	for !(*a.run.Live().Progress()).Paused {
		a.Update(runtab.Drain(a.run.Handle())())
	}
	f := frame(a)
	if !strings.Contains(f, "paused") || !strings.Contains(f, "server looks down") {
		t.Fatalf("the Run tab does not say why the run paused:\n%s", f)
	}
	if p := a.run.Handle().Snapshot(); p.Failed != engine.DefaultBreakAfter || p.Stored != 0 {
		t.Errorf("failed %d, stored %d; want %d and 0", p.Failed, p.Stored, engine.DefaultBreakAfter)
	}
	press(a, "p")
	if (*a.run.Live().Progress()).Paused || strings.Contains(frame(a), "server looks down") {
		t.Errorf("p did not resume the run:\n%s", frame(a))
	}
}
