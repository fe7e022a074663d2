package bank

import (
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/tab"
)

// Services is what the Bank tab needs from the App.
type Services interface {
	tab.Styles
	tab.Clock
	// Store is the open workspace, nil when none is.
	Store() *store.Store
	// Dataset is the open dataset.
	Dataset() *model.Dataset
	// Key is the current study (tab.Session).
	Key() (study.Key, bool)
	Versions() tab.Versions
	// Selected is the Data tab's context and candidate (nil when none),
	// whose request the preview shows.
	Selected() (*model.Context, *model.Candidate)
	// Current is the tab shown now.
	Current() tab.ID
	Runner
}

// Runner runs a screen of the bank as the Run tab runs a study: with its
// form's judge and the engine.
type Runner interface {
	// Spec is the engine spec of a run of the study now: the Run form's
	// judge, the dataset and this bank.
	Spec() (engine.Spec, error)
	// RunActive is whether the Run tab's run is in flight; Quitting,
	// whether quit was confirmed while work was going.
	RunActive() bool
	Quitting() bool
	// StartScreen plans spec and starts it with the Run tab's judges
	// (StartedMsg); a plan with nothing to send starts no run.
	StartScreen(spec engine.Spec) tea.Cmd
	// Drain waits for the run's next events (EventsMsg); Wait, for its
	// summary once everything is stored (DoneMsg).
	Drain(run *engine.Run) tea.Cmd
	Wait(run *engine.Run) tea.Cmd
}
