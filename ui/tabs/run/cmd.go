package run

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
	// StartedMsg carries a started run, or why it could not start.
	StartedMsg struct {
		Run *engine.Run
		Err error
	}
	// EventsMsg is a batch of engine events; Closed reports that the
	// events channel has closed (the run has ended).
	EventsMsg struct {
		Run    *engine.Run
		Events []engine.Event
		Closed bool
	}
	// DoneMsg is the run's summary once everything is stored.
	DoneMsg struct {
		Run     *engine.Run
		Summary engine.Summary
		Err     error
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

// JudgeFactory builds the judges of a plan's run (engine.PlanJudges: one
// per run, and for a G-Eval study in integer mode judges that draw its N
// samples per request; tests swap in slow or failing judges). p's
// configuration holds the API key.
type JudgeFactory func(p *engine.Plan, lim *engine.Limiter) ([]judge.Judge, error)

// DefaultJudges are engine.PlanJudges.
func DefaultJudges(p *engine.Plan, lim *engine.Limiter) ([]judge.Judge, error) {
	return engine.PlanJudges(p, lim)
}

// StartCmd builds the judges and starts the plan (StartedMsg): the Run
// tab's start, and the App's start of a screen of the bank. The API key is read from
// the environment here, registered with the store so it is scrubbed from
// anything written, and never kept by the UI.
func StartCmd(ctx context.Context, st *store.Store, p *engine.Plan, newJudges JudgeFactory) tea.Cmd {
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
		// A copy of the plan carries the key: the tab's plan is shared
		// with Update and never holds it.
		keyed := *p
		keyed.Spec.Config = cfg
		lim := engine.NewLimiter(p.Spec.Limits)
		judges, err := newJudges(&keyed, lim)
		if err != nil {
			return StartedMsg{Err: err}
		}
		r, err := engine.Start(ctx, st, judges, p, engine.Options{Limiter: lim, PauseOnBreak: true})
		return StartedMsg{Run: r, Err: err}
	}
}

// Drain blocks for the run's next event, then keeps draining for
// eventWindow, and returns everything as one message (EventsMsg): the
// coalescing that keeps a fast run from flooding Update. The tab re-arms
// it after each batch until the channel closes.
func Drain(r *engine.Run) tea.Cmd { return drainEventsIn(r, r.Events(), eventTimer) }

// eventTimer opens one coalescing window: eventWindow on the real clock.
func eventTimer() (<-chan time.Time, func() bool) {
	t := time.NewTimer(eventWindow)
	return t.C, t.Stop
}

// drainEventsIn is Drain on any channel (r only labels the message), with the window opened by window once the
// first event is in (tests pass a window they close themselves).
func drainEventsIn(r *engine.Run, ch <-chan engine.Event, window func() (<-chan time.Time, func() bool)) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return EventsMsg{Run: r, Closed: true}
		}
		evs := []engine.Event{ev}
		end, stop := window()
		defer stop()
		for len(evs) < maxEventBatch {
			select {
			case ev, ok := <-ch:
				if !ok {
					return EventsMsg{Run: r, Events: evs, Closed: true}
				}
				evs = append(evs, ev)
			case <-end:
				return EventsMsg{Run: r, Events: evs}
			}
		}
		return EventsMsg{Run: r, Events: evs}
	}
}

// WaitDone waits for the run to finish storing and returns its summary
// (DoneMsg).
func WaitDone(r *engine.Run) tea.Cmd {
	return func() tea.Msg {
		sum, err := r.Wait()
		return DoneMsg{Run: r, Summary: sum, Err: err}
	}
}
