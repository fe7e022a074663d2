package ui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	runtab "github.com/prism-eval/prism/ui/tabs/run"
)

// appTab is a tab that has not moved to its package yet: it still reads
// the *App (the study, the workspace, other tabs' results). A tab that
// has moved is a tab.Tab, which the App holds through packaged. The
// dispatch is tab.Tab's (see its doc).
type appTab interface {
	Update(a *App, msg tea.Msg) tea.Cmd
	View(a *App) string
	SetSize(w, h int)
	Keys(a *App) []key.Binding
	Badge(a *App) string
	Editing() bool
}

// packaged is a tab.Tab as an appTab: the App it is given is the one it
// was built with (through services).
type packaged struct{ tab.Tab }

func (p packaged) Update(_ *App, msg tea.Msg) tea.Cmd { return p.Tab.Update(msg) }
func (p packaged) View(*App) string                   { return p.Tab.View() }
func (p packaged) Keys(*App) []key.Binding            { return p.Tab.Keys() }
func (p packaged) Badge(*App) string                  { return p.Tab.Badge() }

// Shown passes on the tab's, when it has one.
func (p packaged) Shown(*App) tea.Cmd {
	if sh, ok := p.Tab.(tab.Shower); ok {
		return sh.Shown()
	}
	return nil
}

// tabs are the App's tabs in tab order.
func (a *App) tabs() [tab.Count]appTab {
	return [tab.Count]appTab{packaged{a.data}, packaged{a.bank}, packaged{a.run}, packaged{a.sel}, packaged{a.fit}, packaged{a.prof}, packaged{a.insp}, packaged{a.cmp}}
}

// cur is the current tab.
func (a *App) cur() appTab { return a.tabs()[a.tab] }

// services is what the App offers the tabs (tab.Services), kept off the
// App's own methods, which are the program's API.
type services struct{ a *App }

var _ tab.Services = services{}

func (s services) Store() *store.Store     { return s.a.study.Store }
func (s services) Dataset() *model.Dataset { return s.a.study.Dataset }
func (s services) Bank() *banks.Bank       { return s.a.bank.Bank() }
func (s services) Key() (study.Key, bool)  { return s.a.currentKey() }
func (s services) RequireKey() (study.Key, error) {
	return s.a.requireKey()
}
func (s services) Versions() tab.Versions { return &s.a.versions }
func (s services) Judge() string          { return s.a.study.Judge }
func (s services) BankSource() string     { return s.a.bank.Source() }
func (s services) Judges() runtab.JudgeFactory {
	return s.a.newJudges
}
func (s services) Context() context.Context { return s.a.ctx }
func (s services) Now() time.Time           { return s.a.now() }
func (s services) Styles() *styles.Styles   { return s.a.styles }
func (s services) ImportDir() string        { return s.a.importDir }
func (s services) Window() (w, h, body int) { return s.a.width, s.a.height, s.a.bodyHeight() }
func (s services) CalibratorPath() string   { return s.a.calibratorPath() }
func (s services) LoadCalibrator(path string) tea.Cmd {
	return s.a.loadCalibrator(path)
}
func (s services) CalibratorLines(st *styles.Styles, w int) []string {
	return s.a.calLines(st, w)
}
func (s services) CalibratorTerms(st *styles.Styles, k study.Key, ctx, cand string, w int) []string {
	return s.a.calInspectLines(st, k, ctx, cand, w)
}
func (s services) SessionJudge() string  { return s.a.study.Judge }
func (s services) CalibratorDir() string { return calibratorDir(s.a.study) }
func (s services) Busy() string {
	switch {
	case s.a.run.Active():
		return "a run"
	case s.a.bank.Screening():
		return "a screen of the bank"
	}
	return ""
}

// onTabMsg takes the messages tabs send that change what the App keeps:
// the current tab and the study versions. Every tab sees them after.
func (a *App) onTabMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tab.OpenMsg:
		return a.setTab(msg.Tab)
	case tab.OpenDialogMsg:
		return a.openDialog(msg.Dialog)
	case tab.QuitMsg:
		return a.quit()
	case tab.InspectMsg:
		// The Data tab follows the candidate Inspect shows.
		a.data.SelectCandidate(msg.Context, msg.Candidate)
	case tab.CalibratorSavedMsg:
		a.cal.last = msg.Path
	case calLoadedMsg:
		return a.onCalLoaded(msg)
	case calAppliedMsg:
		a.onCalApplied(msg)
	case tab.BankChangedMsg: // the Run tab replans
		a.study.Bank = msg.Bank
	case tab.RunEndedMsg:
		a.bank.DropSignal(msg.Key)
	case tab.AnswersStoredMsg:
		a.versions.Bump(msg.Key)
		if msg.Rubric {
			a.versions.Bump(msg.Key.Rubric())
		}
	}
	return nil
}

// tabDialog is a tab's dialog (tab.Dialog) in the App's modal slot.
type tabDialog struct{ tab.Dialog }

func (d tabDialog) Update(a *App, msg tea.Msg) tea.Cmd {
	done, cmd := d.Dialog.Update(msg)
	if done {
		a.modal = nil // a dialog opens another by a command, after this
	}
	return cmd
}

func (d tabDialog) View(a *App, _ *styles.Styles) string {
	return d.Dialog.View(a.width, a.bodyHeight())
}

// openDialog opens d over the current tab.
func (a *App) openDialog(d tab.Dialog) tea.Cmd {
	a.modal = tabDialog{d}
	return d.Init()
}
