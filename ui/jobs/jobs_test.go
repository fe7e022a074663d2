package jobs

import (
	"context"
	"errors"
	"testing"

	"github.com/prism-eval/prism/calib/study"
)

// A job reports its end; a replaced job's end is dropped; a failed job's
// error is kept.
func TestJob(t *testing.T) {
	var s State[int]
	work := func(n int, err error) func(context.Context, func(int, int)) (int, []string, error) {
		return func(_ context.Context, progress func(int, int)) (int, []string, error) {
			progress(1, 2)
			return n, []string{"w"}, err
		}
	}
	old, _ := Start(context.Background(), study.Key{}, work(1, nil))
	s.Start(old)
	j, cmd := Start(context.Background(), study.Key{Judge: "j"}, work(2, nil))
	s.Start(j)
	started, ok := cmd().(StartedMsg[int])
	if !ok || started.Job != j {
		t.Fatalf("start: %#v", started)
	}
	var done DoneMsg[int]
	for next := started.Follow(&s); next != nil; {
		switch m := next().(type) {
		case ProgressMsg[int]:
			next = m.Apply(&s)
		case DoneMsg[int]:
			done, next = m, nil
		}
	}
	if s.Finish(old) || !s.Finish(done.Job) || done.Job.Res != 2 || s.Job != nil || s.Err != nil {
		t.Fatalf("finish: res %d, state %+v", done.Job.Res, s)
	}
	bad := errors.New("bad")
	j, cmd = Start(context.Background(), study.Key{}, work(0, bad))
	s.Start(j)
	cmd()
	<-j.finished
	if s.Finish(j) || !errors.Is(s.Err, bad) {
		t.Errorf("a failed job: err %v", s.Err)
	}
}
