package tab

import (
	"errors"

	"github.com/prism-eval/prism/banks"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
)

// Navigation the App maps from its common keys, the wheel and the mouse
// onto the current tab.
type (
	// MoveMsg moves the focused pane's cursor or scroll by Delta rows
	// (±1<<30 for the top and the bottom).
	MoveMsg struct{ Delta int }
	// FocusMsg focuses the right or left pane.
	FocusMsg struct{ Right bool }
	// ClickMsg is a left click at X, Y of the tab's body.
	ClickMsg struct{ X, Y int }
)

// Messages tabs talk with. A tab returns one with Send; the App acts on
// those that change what it keeps (the current tab, the study versions)
// and hands every one to every tab.
type (
	// OpenMsg shows tab Tab.
	OpenMsg struct{ Tab ID }

	// AnswersStoredMsg says a run or a screen of the bank stored answers
	// of Key (Rubric: ratings of a rubric study, which the fits of
	// Key's judge score as baselines). The App bumps the study's version
	// before the tabs see it, so a tab comparing versions in its Update
	// already sees the new one.
	AnswersStoredMsg struct {
		Key    study.Key
		Rubric bool
	}

	// FitDoneMsg carries the Fit tab's new fit of Key, read at Version of
	// its answers and Rubrics of its judge's rubric studies: the Profiles
	// tab shows it, Inspect follows it. Report is nil when the study has
	// no probes (the Fit tab measured its agreement instead); Design is
	// nil for a fit read from the workspace (Stored), which Inspect does
	// not follow.
	FitDoneMsg struct {
		Key              study.Key
		Version, Rubrics int
		Report           *calib.Report
		Design           *calib.Design
		Stored           *study.Stored
	}

	// FitSettingsMsg says the Fit tab's metric or Taylor setting changed:
	// its next fit, and the Compare tab's, use them.
	FitSettingsMsg struct {
		Metric string
		Taylor bool
	}

	// RefitMsg asks the Fit tab to fit the study again (f on the Profiles
	// and Inspect tabs), after switching the metric (m) or the Taylor
	// setting (t) when asked.
	RefitMsg struct{ SwitchMetric, SwitchTaylor bool }

	// CalibratorSavedMsg says the Fit tab saved a calibrator at Path,
	// which L on the Data tab then offers.
	CalibratorSavedMsg struct{ Path string }

	// CandidateMsg says the Data tab's selection moved to Candidate of
	// Context (the Bank tab previews it).
	CandidateMsg struct{ Context, Candidate string }

	// InspectMsg asks the Inspect tab to show Candidate of Context; Back
	// is the tab esc returns to.
	InspectMsg struct {
		Context, Candidate string
		Back               ID
	}

	// OpenDialogMsg opens Dialog over the current tab.
	OpenDialogMsg struct{ Dialog Dialog }

	// QuitMsg quits, asking first when work would be lost (ctrl+c in a
	// dialog or a text input, where q is a letter).
	QuitMsg struct{}

	// DatasetMsg opens Dataset, read from the workspace (Imported: just
	// stored there), or says why it could not be read.
	DatasetMsg struct {
		Dataset  *model.Dataset
		Imported bool
		Err      error
	}

	// BankChangedMsg says the Bank tab has a new bank version (an edit,
	// another built-in): the study uses it and the Run tab replans.
	BankChangedMsg struct{ Bank *banks.Bank }

	// RunEndedMsg says the Run tab's run of Key has ended (whatever it
	// stored): the Bank tab's signal report of Key is stale. A run that
	// stored answers says so with AnswersStoredMsg too.
	RunEndedMsg struct{ Key study.Key }

	// ReplanMsg says the Run tab's estimate is stale (answers were
	// stored): the App plans the next run again.
	ReplanMsg struct{}

	// StatusMsg is a line for a tab's status (Err: shown as an error),
	// from work another part of the App did for it (a dialog's import).
	StatusMsg struct {
		Tab  ID
		Text string
		Err  bool
	}
)

// ErrNoWorkspace is why work that needs the workspace does not start.
var ErrNoWorkspace = errors.New("no workspace is open: start prism with --workspace FILE")
