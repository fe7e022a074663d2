package jobs

import (
	"testing"
	"time"

	"github.com/prism-eval/prism/calib/study"
)

// The Progress callback never waits, however many calls nobody reads, and
// the next message carries the latest numbers.
func TestProgressCoalesces(t *testing.T) {
	j := New[int](study.Key{}, func() {})
	done := make(chan struct{})
	go func() {
		for i := 1; i <= 100000; i++ {
			j.Progress(i, 100000)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the Progress callback blocked")
	}
	msg, ok := Wait(j)().(ProgressMsg[int])
	if !ok || msg.Done != 100000 || msg.Total != 100000 {
		t.Fatalf("progress message %+v, want the latest 100000/100000", msg)
	}
	close(j.finished)
	if _, ok := Wait(j)().(DoneMsg[int]); !ok {
		t.Fatal("no done message after the job finished")
	}
}

// A State takes the messages of its job in flight and drops those of a
// job it replaced; Finish reports a result only for a success.
func TestStateDropsReplacedJobs(t *testing.T) {
	var s State[int]
	old, cur := New[int](study.Key{}, func() {}), New[int](study.Key{}, func() {})
	s.Start(old)
	s.Start(cur)
	if (StartedMsg[int]{Job: old}).Follow(&s) != nil || (ProgressMsg[int]{Job: old, Done: 1, Total: 2}).Apply(&s) != nil || s.Done != 0 {
		t.Fatal("a replaced job's messages were taken")
	}
	if (ProgressMsg[int]{Job: cur, Done: 1, Total: 2}).Apply(&s) == nil || s.Done != 1 || s.Total != 2 {
		t.Fatalf("progress %d/%d, want 1/2", s.Done, s.Total)
	}
	if s.Finish(old) {
		t.Fatal("a replaced job finished")
	}
	cur.Res = 7
	if !s.Finish(cur) || s.Job != nil || s.Err != nil {
		t.Fatalf("finish: job %v, err %v", s.Job, s.Err)
	}
}
