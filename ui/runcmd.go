package ui

import (
	"context"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// The Run tab's I/O: every function here returns a tea.Cmd that does
// its work off the UI goroutine and reports back with a message. Update
// only reads those messages.

// eventWindow is how long a drained batch of engine events may gather
// after its first event: at most about 1/eventWindow messages reach
// Update per second, however fast the run.
const eventWindow = 50 * time.Millisecond

// maxEventBatch caps one batch, so one message never carries an
// unbounded slice.
const maxEventBatch = 8192

type (
	// planMsg carries a plan (with its estimate) for form generation gen.
	planMsg struct {
		gen  int
		plan *engine.Plan
		err  error
	}
	// runStartedMsg carries a started run, or why it could not start.
	runStartedMsg struct {
		run *engine.Run
		err error
	}
	// runEventsMsg is a batch of engine events; closed reports that the
	// events channel has closed (the run has ended).
	runEventsMsg struct {
		run    *engine.Run
		events []engine.Event
		closed bool
	}
	// runDoneMsg is the run's summary once everything is stored.
	runDoneMsg struct {
		run     *engine.Run
		summary engine.Summary
		err     error
	}
)

// planCmd renders the study into requests and asks the workspace what is
// left to send: the estimate shown before a run starts.
func planCmd(ctx context.Context, st *store.Store, spec engine.Spec, gen int) tea.Cmd {
	return func() tea.Msg {
		p, err := engine.NewRunPlan(ctx, st, spec)
		return planMsg{gen: gen, plan: p, err: err}
	}
}

// storedMsg carries the stored progress of plan's study.
type storedMsg struct {
	plan     *engine.Plan
	progress store.Progress
	rows     []model.ScoreRow // the stored scores, for the Δ histograms
	err      error
}

// storedCmd reads what the workspace holds of p's study (requests,
// answered, failed attempts), for the Run tab of a study with nothing
// left to send.
func storedCmd(ctx context.Context, st *store.Store, p *engine.Plan) tea.Cmd {
	return func() tea.Msg {
		sp := p.Spec
		pr, err := st.Progress(ctx, sp.Dataset.Name, sp.JudgeName, p.BankHash)
		if err != nil {
			return storedMsg{plan: p, err: err}
		}
		rows, err := st.Scores(ctx, sp.Dataset.Name, sp.JudgeName, p.BankHash)
		return storedMsg{plan: p, progress: pr, rows: rows, err: err}
	}
}

// judgeFactory builds the judges of a plan's run (engine.PlanJudges: one
// per run, and for a G-Eval study in integer mode judges that draw its N
// samples per request; tests swap in slow or failing judges). p's
// configuration holds the API key.
type judgeFactory func(p *engine.Plan, lim *engine.Limiter) ([]judge.Judge, error)

func defaultJudges(p *engine.Plan, lim *engine.Limiter) ([]judge.Judge, error) {
	return engine.PlanJudges(p, lim)
}

// startCmd builds the judges and starts the plan. The API key is read from
// the environment here, registered with the store so it is scrubbed from
// anything written, and never kept by the UI.
func startCmd(ctx context.Context, st *store.Store, p *engine.Plan, newJudges judgeFactory) tea.Cmd {
	return func() tea.Msg {
		cfg := p.Spec.Config
		if cfg.Backend == judge.BackendOpenAI {
			env := cfg.APIKeyEnv
			if env == "" {
				env = "OPENAI_API_KEY"
			}
			if k := os.Getenv(env); k != "" {
				cfg.APIKey = judge.Secret(k)
				st.AddSecret(k)
			}
		}
		// A copy of the plan carries the key: the App's plan is shared
		// with Update and never holds it.
		keyed := *p
		keyed.Spec.Config = cfg
		lim := engine.NewLimiter(p.Spec.Limits)
		judges, err := newJudges(&keyed, lim)
		if err != nil {
			return runStartedMsg{err: err}
		}
		r, err := engine.Start(ctx, st, judges, p, engine.Options{Limiter: lim, PauseOnBreak: true})
		return runStartedMsg{run: r, err: err}
	}
}

// waitEvents blocks for the run's next event, then keeps draining for
// eventWindow, and returns everything as one message: the coalescing that
// keeps a fast run from flooding Update. The App re-arms it after each
// batch until the channel closes.
func waitEvents(r *engine.Run) tea.Cmd { return drainEvents(r, r.Events()) }

// drainEvents is waitEvents on any channel; r only labels the message.
func drainEvents(r *engine.Run, ch <-chan engine.Event) tea.Cmd {
	return drainEventsIn(r, ch, eventTimer)
}

// eventTimer opens one coalescing window: eventWindow on the real clock.
func eventTimer() (<-chan time.Time, func() bool) {
	t := time.NewTimer(eventWindow)
	return t.C, t.Stop
}

// drainEventsIn is drainEvents with the window opened by window once the
// first event is in (tests pass a window they close themselves).
func drainEventsIn(r *engine.Run, ch <-chan engine.Event, window func() (<-chan time.Time, func() bool)) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return runEventsMsg{run: r, closed: true}
		}
		evs := []engine.Event{ev}
		end, stop := window()
		defer stop()
		for len(evs) < maxEventBatch {
			select {
			case ev, ok := <-ch:
				if !ok {
					return runEventsMsg{run: r, events: evs, closed: true}
				}
				evs = append(evs, ev)
			case <-end:
				return runEventsMsg{run: r, events: evs}
			}
		}
		return runEventsMsg{run: r, events: evs}
	}
}

// waitDone waits for the run to finish storing and returns its summary.
func waitDone(r *engine.Run) tea.Cmd {
	return func() tea.Msg {
		sum, err := r.Wait()
		return runDoneMsg{run: r, summary: sum, err: err}
	}
}
