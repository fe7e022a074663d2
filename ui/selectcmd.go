package ui

import (
	"context"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model/store"
)

// The Selection screen's work: calib.Select (PROTOCOL §9) on the stored
// answers of the current dataset, judge and bank version, in a goroutine
// whose progress reaches Update as coalesced messages.

// progressWindow is how long a progress message gathers callbacks after
// the first: at most about 1/progressWindow messages per second reach
// Update, however fast subsets are evaluated.
const progressWindow = 100 * time.Millisecond

// selectJob is one selection in flight. Its Progress callback only stores
// two numbers and pokes a channel of capacity one, so it never waits.
type selectJob struct {
	key      signalKey
	cancel   context.CancelFunc
	done     atomic.Int64
	total    atomic.Int64
	notify   chan struct{} // capacity 1: "progress changed"
	finished chan struct{} // closed when rep, warnings and err are set

	rep      *calib.SelectReport
	warnings []string
	err      error
}

type (
	// selectStartedMsg carries a started selection.
	selectStartedMsg struct{ job *selectJob }
	// selectProgressMsg is the latest progress of a job's enumeration.
	selectProgressMsg struct {
		job         *selectJob
		done, total int
	}
	// selectDoneMsg reports that a job has finished.
	selectDoneMsg struct{ job *selectJob }
)

// progress is the job's calib Progress callback.
func (j *selectJob) progress(done, total int) {
	j.done.Store(int64(done))
	j.total.Store(int64(total))
	select {
	case j.notify <- struct{}{}:
	default: // a poke is already pending; its message reads the latest numbers
	}
}

// startSelectCmd starts a selection of key's answers with opts (its
// Progress is set here) and returns the job at once.
func startSelectCmd(ctx context.Context, st *store.Store, key signalKey, opts calib.SelectOptions) (*selectJob, tea.Cmd) {
	ctx, cancel := context.WithCancel(ctx)
	j := &selectJob{key: key, cancel: cancel, notify: make(chan struct{}, 1), finished: make(chan struct{})}
	opts.Progress = j.progress
	return j, func() tea.Msg {
		go func() {
			defer close(j.finished)
			j.rep, j.warnings, j.err = runSelect(ctx, st, key, opts)
		}()
		return selectStartedMsg{job: j}
	}
}

// runSelect reads the answers and labels and runs calib.Select on the
// candidates that have answers (a screen or an unfinished run scores part
// of the dataset).
func runSelect(ctx context.Context, st *store.Store, key signalKey, opts calib.SelectOptions) (*calib.SelectReport, []string, error) {
	in, err := readStudyInput(ctx, st, key, "selecting on")
	if err != nil {
		return nil, nil, err
	}
	opts.ScoresFile, opts.LabelsFile = in.source, in.source
	rep, w, err := calib.Select(ctx, in.rows, in.labels, opts)
	return rep, append(in.warnings, w...), err
}

// waitSelect waits for the job's next progress or its end. A progress
// poke is held for progressWindow so a burst of subsets becomes one
// message; the App re-arms it after each progress message.
func waitSelect(j *selectJob) tea.Cmd {
	return func() tea.Msg {
		select {
		case <-j.finished:
			return selectDoneMsg{job: j}
		case <-j.notify:
		}
		t := time.NewTimer(progressWindow)
		defer t.Stop()
		select {
		case <-j.finished:
			return selectDoneMsg{job: j}
		case <-t.C:
		}
		return selectProgressMsg{job: j, done: int(j.done.Load()), total: int(j.total.Load())}
	}
}
