package jobs

import (
	"context"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib/study"
)

// A Job is a long computation on a key's stored answers (a fit, a probe
// selection) that runs in its own goroutine and reports progress to
// Update as coalesced messages: its progress callback only stores two
// numbers and pokes a channel of capacity one, so it never waits, and a
// message reads the latest numbers.

// progressWindow is how long a progress message gathers callbacks after
// the first: at most about 1/progressWindow messages per second reach
// Update, however fast the work reports.
const progressWindow = 100 * time.Millisecond

// Job is one computation in flight with result type R. Res, Warnings and
// Err are set once it has finished (DoneMsg).
type Job[R any] struct {
	Key      study.Key
	cancel   context.CancelFunc
	done     atomic.Int64
	total    atomic.Int64
	notify   chan struct{} // capacity 1: "progress changed"
	finished chan struct{} // closed when Res, Warnings and Err are set

	Res      R
	Warnings []string
	Err      error
}

type (
	// StartedMsg carries a started job.
	StartedMsg[R any] struct{ Job *Job[R] }
	// ProgressMsg is the latest progress of a job.
	ProgressMsg[R any] struct {
		Job         *Job[R]
		Done, Total int
	}
	// DoneMsg reports that a job has finished.
	DoneMsg[R any] struct{ Job *Job[R] }
)

// New is a job of key that cancel cancels, not started (Start starts
// one; tests build one to feed its messages).
func New[R any](key study.Key, cancel context.CancelFunc) *Job[R] {
	return &Job[R]{Key: key, cancel: cancel, notify: make(chan struct{}, 1), finished: make(chan struct{})}
}

// Progress is the job's progress callback.
func (j *Job[R]) Progress(done, total int) {
	j.done.Store(int64(done))
	j.total.Store(int64(total))
	select {
	case j.notify <- struct{}{}:
	default: // a poke is already pending; its message reads the latest numbers
	}
}

// Start runs work for key in a goroutine under a cancellable ctx and
// returns the job at once; its command reports the start.
func Start[R any](ctx context.Context, key study.Key,
	work func(ctx context.Context, progress func(done, total int)) (R, []string, error)) (*Job[R], tea.Cmd) {
	ctx, cancel := context.WithCancel(ctx)
	j := New[R](key, cancel)
	return j, func() tea.Msg {
		go func() {
			defer close(j.finished)
			j.Res, j.Warnings, j.Err = work(ctx, j.Progress)
		}()
		return StartedMsg[R]{Job: j}
	}
}

// Wait waits for the job's next progress or its end. A progress poke is
// held for progressWindow so that a burst becomes one message; the tab
// waits again after each progress message.
func Wait[R any](j *Job[R]) tea.Cmd {
	return func() tea.Msg {
		select {
		case <-j.finished:
			return DoneMsg[R]{Job: j}
		case <-j.notify:
		}
		t := time.NewTimer(progressWindow)
		defer t.Stop()
		select {
		case <-j.finished:
			return DoneMsg[R]{Job: j}
		case <-t.C:
		}
		return ProgressMsg[R]{Job: j, Done: int(j.done.Load()), Total: int(j.total.Load())}
	}
}

// State is a tab's side of its job: the one in flight (nil when none),
// its latest progress, and why the last one failed, if it did.
type State[R any] struct {
	Job         *Job[R]
	Done, Total int
	Err         error
}

// Start cancels the job in flight, whose end will be dropped, and takes j.
func (s *State[R]) Start(j *Job[R]) {
	if s.Job != nil {
		s.Job.cancel()
	}
	s.Job, s.Done, s.Total, s.Err = j, 0, 0, nil
}

// Finish takes the end of j and reports whether it is a result to show:
// j was the job in flight (a replaced job's end is dropped) and succeeded
// (else its error is in Err).
func (s *State[R]) Finish(j *Job[R]) bool {
	if j != s.Job {
		return false
	}
	j.cancel()
	s.Job, s.Err = nil, j.Err
	return j.Err == nil
}

// Follow waits for the job's first message when it is still the job in
// flight of s; a replaced job is left to finish unheard.
func (m StartedMsg[R]) Follow(s *State[R]) tea.Cmd {
	if m.Job != s.Job {
		return nil
	}
	return Wait(m.Job)
}

// Apply takes the progress of the job in flight of s and waits for the
// next message; a replaced job's progress is dropped.
func (m ProgressMsg[R]) Apply(s *State[R]) tea.Cmd {
	if m.Job != s.Job {
		return nil
	}
	s.Done, s.Total = m.Done, m.Total
	return Wait(m.Job)
}
