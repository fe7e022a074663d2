package run

import (
	"context"
	"fmt"
	"time"

	"github.com/prism-eval/prism/calib/signal"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/ratio"
)

// signalMsg carries a recomputed ratio panel (or why it failed).
type signalMsg struct {
	view *ratio.View
	err  error
}

// signalCmd reads the scores stored so far for the run's dataset, judge
// and bank version and computes docs/protocol.md §8's ratios from them, off the UI
// goroutine. It works on partial data: units with no displacements yet
// come back without a ratio.
func signalCmd(ctx context.Context, st *store.Store, dataset, judgeName, bankHash string, resamples int, final bool) tea.Cmd {
	return func() tea.Msg {
		start := time.Now()
		rows, err := st.Scores(ctx, dataset, judgeName, bankHash)
		if err != nil {
			return signalMsg{err: fmt.Errorf("reading scores: %w", err)}
		}
		rep, err := signal.Signal(ctx, rows, signal.Options{Bootstrap: resamples, Seed: 42})
		if err != nil {
			return signalMsg{err: err}
		}
		v := ratio.FromReport(rep)
		v.Resamples, v.Final, v.Scores, v.Took = resamples, final, len(rows), time.Since(start)
		return signalMsg{view: v}
	}
}
