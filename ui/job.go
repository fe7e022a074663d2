package ui

import (
	"context"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
)

// A job is a long computation on a key's stored answers (a fit, a probe
// selection) that runs in its own goroutine and reports progress to
// Update as coalesced messages: its progress callback only stores two
// numbers and pokes a channel of capacity one, so it never waits, and a
// message reads the latest numbers.

// progressWindow is how long a progress message gathers callbacks after
// the first: at most about 1/progressWindow messages per second reach
// Update, however fast the work reports.
const progressWindow = 100 * time.Millisecond

// job is one computation in flight with result type R.
type job[R any] struct {
	key      studyKey
	cancel   context.CancelFunc
	done     atomic.Int64
	total    atomic.Int64
	notify   chan struct{} // capacity 1: "progress changed"
	finished chan struct{} // closed when res, warnings and err are set

	res      R
	warnings []string
	err      error
}

type (
	// jobStartedMsg carries a started job.
	jobStartedMsg[R any] struct{ job *job[R] }
	// jobProgressMsg is the latest progress of a job.
	jobProgressMsg[R any] struct {
		job         *job[R]
		done, total int
	}
	// jobDoneMsg reports that a job has finished.
	jobDoneMsg[R any] struct{ job *job[R] }
)

func newJob[R any](key studyKey, cancel context.CancelFunc) *job[R] {
	return &job[R]{key: key, cancel: cancel, notify: make(chan struct{}, 1), finished: make(chan struct{})}
}

// progress is the job's progress callback.
func (j *job[R]) progress(done, total int) {
	j.done.Store(int64(done))
	j.total.Store(int64(total))
	select {
	case j.notify <- struct{}{}:
	default: // a poke is already pending; its message reads the latest numbers
	}
}

// startJob runs work for key in a goroutine under a cancellable ctx and
// returns the job at once; its command reports the start.
func startJob[R any](ctx context.Context, key studyKey,
	work func(ctx context.Context, progress func(done, total int)) (R, []string, error)) (*job[R], tea.Cmd) {
	ctx, cancel := context.WithCancel(ctx)
	j := newJob[R](key, cancel)
	return j, func() tea.Msg {
		go func() {
			defer close(j.finished)
			j.res, j.warnings, j.err = work(ctx, j.progress)
		}()
		return jobStartedMsg[R]{job: j}
	}
}

// waitJob waits for the job's next progress or its end. A progress poke
// is held for progressWindow so that a burst becomes one message; the App
// waits again after each progress message.
func waitJob[R any](j *job[R]) tea.Cmd {
	return func() tea.Msg {
		select {
		case <-j.finished:
			return jobDoneMsg[R]{job: j}
		case <-j.notify:
		}
		t := time.NewTimer(progressWindow)
		defer t.Stop()
		select {
		case <-j.finished:
			return jobDoneMsg[R]{job: j}
		case <-t.C:
		}
		return jobProgressMsg[R]{job: j, done: int(j.done.Load()), total: int(j.total.Load())}
	}
}

// jobState is a tab's side of its job: the one in flight (nil when
// none), its latest progress, and why the last one failed, if it did.
type jobState[R any] struct {
	job         *job[R]
	done, total int
	err         error
}

// start cancels the job in flight, whose end will be dropped, and takes j.
func (s *jobState[R]) start(j *job[R]) {
	if s.job != nil {
		s.job.cancel()
	}
	s.job, s.done, s.total, s.err = j, 0, 0, nil
}

// finish takes the end of j and reports whether it is a result to show:
// j was the job in flight (a replaced job's end is dropped) and succeeded
// (else its error is in err).
func (s *jobState[R]) finish(j *job[R]) bool {
	if j != s.job {
		return false
	}
	j.cancel()
	s.job, s.err = nil, j.err
	return j.err == nil
}

// follow waits for the job's first message when it is still the job in
// flight of s; a replaced job is left to finish unheard.
func (m jobStartedMsg[R]) follow(s *jobState[R]) tea.Cmd {
	if m.job != s.job {
		return nil
	}
	return waitJob(m.job)
}

// apply takes the progress of the job in flight of s and waits for the
// next message; a replaced job's progress is dropped.
func (m jobProgressMsg[R]) apply(s *jobState[R]) tea.Cmd {
	if m.job != s.job {
		return nil
	}
	s.done, s.total = m.done, m.total
	return waitJob(m.job)
}
