package tab

import (
	"context"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
)

// Session reads the study the App has open. Tabs change it only through
// messages, so what it returns holds for the Update that reads it.
type Session interface {
	// Store is the open workspace, nil when none is.
	Store() *store.Store
	// Dataset is the dataset being worked on (never nil; it may be empty).
	Dataset() *model.Dataset
	// Bank is the probe bank as the Bank tab last committed it.
	Bank() *banks.Bank
	// Key is the current study (dataset, the Run form's judge, the bank
	// version); ok is false when there is none (no workspace, no
	// dataset, an invalid form). RequireKey says why in its error.
	Key() (k study.Key, ok bool)
	RequireKey() (study.Key, error)
	// Versions are the study versions (read only: the App bumps them on
	// AnswersStoredMsg).
	Versions() Versions
}

// Versions reads study.Versions.
type Versions interface {
	Of(study.Key) int
	Total(match func(study.Key) bool) int
}

var _ Versions = (*study.Versions)(nil)

// Clock is the App's context (cancelled on quit; its work's parent) and
// time, which tests fix.
type Clock interface {
	Context() context.Context
	Now() time.Time
}

// Jobs says whether the App's long work is going: a run in flight, a
// screen of the bank. A tab starts its own work as commands; this is
// for the tabs that must not start theirs meanwhile.
type Jobs interface {
	// Busy names the work going ("a run", "a screen of the bank"), or "".
	Busy() string
}

// Window is the terminal's size and the height of a tab's body (below
// the tab bar, above the help): what a dialog is sized to.
type Window interface {
	Window() (width, height, body int)
}

// Styles are the App's current styles (they change with the terminal's
// background colour).
type Styles interface {
	Styles() *styles.Styles
}

// Services is everything the App offers a tab.
type Services interface {
	Session
	Clock
	Jobs
	Styles
	Window
}
