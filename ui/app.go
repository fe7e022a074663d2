// Package ui is prism's Bubble Tea TUI: one root App that owns all state
// and routes messages, with child views as plain structs that take a size
// and render a string. No I/O happens in Update; long work (planning,
// runs, imports, the ratio bootstrap) runs in commands and comes back as
// messages.
package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/ui/styles"
)

type screen int

const (
	screenData screen = iota
	screenBank
	screenRun
	screenSelect
	screenFit
	screenProfiles
	screenInspect
	screenCompare
	numScreens
)

var screenNames = [numScreens]string{"Data", "Bank", "Run", "Select", "Fit", "Profiles", "Inspect", "Compare"}

// shortNames label the tabs of a narrow terminal, where every full name
// does not fit beside the badge.
var shortNames = [numScreens]string{"Data", "Bank", "Run", "Select", "Fit", "Prof", "Insp", "Comp"}

// Minimum layout; smaller terminals get a notice instead of a broken frame.
const minWidth, minHeight = 60, 16

// App is the root Bubble Tea model.
type App struct {
	ctx      context.Context
	now      func() time.Time
	study    Study
	styles   *styles.Styles
	keys     KeyMap
	help     help.Model
	screen   screen
	fullHelp bool

	data dataView
	bank bankView
	run  runView
	sel  selectView
	fit  fitView
	prof profView
	insp inspectView
	cmp  compareView

	modal modal // a dialog over the screen, or nil

	// The run in flight (nil when none) and the ratio panel's schedule.
	active       *engine.Run
	runPlan      *engine.Plan // the plan of the current or last run
	planGen      int
	startPlanned bool // start as soon as the plan of planGen arrives
	signalBusy   bool
	signalAt     time.Time     // when the last recomputation was asked for
	signalCost   time.Duration // how long the last one took
	signalFinal  bool          // the run has ended and the final panel is owed
	quitAfterRun bool
	newJudges    judgeFactory
	importDir    string // where the import file picker starts
	exportDir    string // where the Fit screen's e writes the report and figures

	// The Bank screen's signal panel: reports by dataset, judge and bank
	// version, the one being computed, and a screen in flight.
	bankSig     map[studyKey]bankSignal
	bankSigBusy bool
	sigGen      int              // bumped when answers are stored; older reports are stale
	answers     map[studyKey]int // per key, bumped when answers are stored
	stored      int              // bumped when answers of any key are stored
	screening   *screening

	width, height int
}

// New builds the App for a study. The styles assume a dark background until
// the terminal reports its colour.
func New(s Study) *App {
	a := &App{
		ctx:       context.Background(),
		now:       time.Now,
		newJudges: defaultJudges,
		importDir: ".",
		exportDir: "prism-export",
		bankSig:   map[studyKey]bankSignal{},
		answers:   map[studyKey]int{},
		study:     s,
		keys:      DefaultKeyMap(),
		help:      help.New(),
		data:      newDataView(s.Dataset),
		bank:      newBankView(s.Bank, s.Dataset.Task),
		run:       runView{form: newRunForm(s.Config)},
		width:     80,
		height:    24,
	}
	if s.BankSource != "" {
		a.bank.source = s.BankSource
	}
	if len(s.Datasets) > 1 && !s.PickedDataset {
		a.modal = newDatasetChooser(s.Datasets, s.Dataset.Name)
	}
	a.setStyles(true)
	a.layout()
	return a
}

// WithContext sets the context of the App's background work (planning,
// runs, imports); cancelling it cancels a run.
func (a *App) WithContext(ctx context.Context) *App { a.ctx = ctx; return a }

func (a *App) setStyles(isDark bool) {
	a.styles = styles.New(isDark)
	a.help.Styles = a.styles.Help
}

// Init asks the terminal for its background colour (for light/dark styles)
// and plans the first run, so the estimate is ready on the Run screen.
func (a *App) Init() tea.Cmd {
	return tea.Batch(tea.RequestBackgroundColor, a.replan())
}

// Update routes a message to the App's state.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.width, a.height = msg.Width, msg.Height
		a.layout()
	case tea.BackgroundColorMsg:
		a.setStyles(msg.IsDark())
	case tea.KeyPressMsg:
		return a, a.handleKey(msg)
	case tea.PasteMsg:
		if a.modal != nil {
			return a, a.modal.Update(a, msg)
		}
		if a.run.form.editing {
			return a, a.run.form.Update(msg)
		}
	case tea.MouseClickMsg:
		return a, a.handleClick(msg.Mouse())
	case tea.MouseWheelMsg:
		switch msg.Mouse().Button {
		case tea.MouseWheelUp:
			a.move(-1)
		case tea.MouseWheelDown:
			a.move(1)
		}
	case planMsg:
		return a, a.onPlan(msg)
	case runStartedMsg:
		return a, a.onRunStarted(msg)
	case runEventsMsg:
		if a.screening != nil && msg.run == a.screening.run {
			return a, a.onScreenEvents(msg)
		}
		return a, a.onRunEvents(msg)
	case runDoneMsg:
		if a.screening != nil && msg.run == a.screening.run {
			return a, a.onScreenDone(msg)
		}
		return a, a.onRunDone(msg)
	case signalMsg:
		return a, a.onSignal(msg)
	case bankSignalMsg:
		return a, a.onBankSignal(msg)
	case screenStartedMsg:
		return a, a.onScreenStarted(msg)
	case jobStartedMsg[*calib.SelectReport]:
		return a, msg.follow(&a.sel.jobState)
	case jobProgressMsg[*calib.SelectReport]:
		return a, msg.apply(&a.sel.jobState)
	case jobDoneMsg[*calib.SelectReport]:
		return a, a.onSelectDone(msg)
	case jobStartedMsg[fitResult]:
		return a, msg.follow(&a.fit.jobState)
	case jobProgressMsg[fitResult]:
		return a, msg.apply(&a.fit.jobState)
	case jobDoneMsg[fitResult]:
		return a, a.onFitDone(msg)
	case inspectMsg:
		a.onInspect(msg)
	case exportedMsg:
		a.onExported(msg)
	case compareMsg:
		if msg.gen == a.cmp.gen {
			a.cmp.busy, a.cmp.fits, a.cmp.err = false, msg.fits, msg.err
		}
	default:
		// Messages of an open dialog (file listings, imports, saves) and of
		// the text inputs' cursor blink.
		if a.modal != nil {
			return a, a.modal.Update(a, msg)
		}
		if a.run.form.editing {
			return a, a.run.form.Update(msg)
		}
		return a, a.handleOther(msg)
	}
	return a, nil
}

func (a *App) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if a.modal != nil {
		return a.modal.Update(a, msg)
	}
	k := a.keys
	if msg.String() == "ctrl+c" && (a.run.form.editing || a.bank.editing) {
		// ctrl+c quits from a text input too; q there is a letter.
		a.run.form.Abort()
		a.bank.editing = false
	}
	if a.screen == screenRun && a.run.form.editing {
		switch {
		case key.Matches(msg, k.Enter):
			a.run.form.Commit()
			return a.replan()
		case msg.String() == "esc":
			a.run.form.Abort()
			return nil
		}
		return a.run.form.Update(msg)
	}
	if a.screen == screenBank && a.bank.editing {
		return a.bankEditKey(msg)
	}
	if s := k.jumpTo(msg); s >= 0 {
		return a.setScreen(s)
	}
	switch {
	case key.Matches(msg, k.Quit):
		if a.run.active() || a.screening != nil {
			a.modal = confirmQuit{}
			return nil
		}
		return tea.Quit
	case key.Matches(msg, k.Help):
		a.fullHelp = !a.fullHelp
		a.layout()
	case key.Matches(msg, k.NextScreen):
		return a.setScreen((a.screen + 1) % numScreens)
	case key.Matches(msg, k.PrevScreen):
		return a.setScreen((a.screen + numScreens - 1) % numScreens)
	case key.Matches(msg, k.Up):
		a.move(-1)
	case key.Matches(msg, k.Down):
		a.move(1)
	case key.Matches(msg, k.PageUp):
		a.move(-a.pageRows())
	case key.Matches(msg, k.PageDown):
		a.move(a.pageRows())
	case key.Matches(msg, k.Top):
		a.move(-1 << 30)
	case key.Matches(msg, k.Bottom):
		a.move(1 << 30)
	case key.Matches(msg, k.Left):
		a.focus(false)
	case key.Matches(msg, k.Right):
		a.focus(true)
	default:
		switch a.screen {
		case screenData:
			return a.dataKey(msg)
		case screenBank:
			return a.bankKey(msg)
		case screenRun:
			return a.runKey(msg)
		case screenSelect:
			return a.selectKey(msg)
		case screenFit, screenProfiles:
			return a.fitKey(msg)
		case screenInspect:
			switch {
			case key.Matches(msg, k.Back):
				return a.setScreen(a.insp.back)
			case key.Matches(msg, k.Refit):
				return a.startFit()
			case key.Matches(msg, k.NextCand):
				return a.stepInspect(1)
			case key.Matches(msg, k.PrevCand):
				return a.stepInspect(-1)
			}
		case screenCompare:
			if key.Matches(msg, k.Compare) {
				return a.startCompare()
			}
		}
	}
	return nil
}

func (a *App) pageRows() int { return max(a.bodyHeight()-4, 1) }

func (a *App) setScreen(s screen) tea.Cmd {
	a.screen = s
	if s == screenBank {
		a.bank.Refresh(a.data.Context(), a.data.Candidate())
		return a.refreshBankSignal()
	}
	return nil
}

func (a *App) move(delta int) {
	switch a.screen {
	case screenData:
		a.data.Move(delta)
	case screenBank:
		a.bank.Move(delta)
		a.bank.Refresh(a.data.Context(), a.data.Candidate())
	case screenRun:
		a.run.Move(delta)
	case screenSelect:
		a.sel.Move(delta)
	case screenFit:
		a.fit.Move(delta)
	case screenProfiles:
		a.prof.Move(delta)
	case screenInspect:
		a.insp.Move(delta)
	case screenCompare:
		a.cmp.Move(delta)
	}
}

func (a *App) focus(right bool) {
	switch a.screen {
	case screenData:
		a.data.Focus(right)
	case screenBank:
		a.bank.Focus(right)
	case screenRun:
		a.run.Focus(right)
	case screenSelect:
		a.sel.Focus(right)
	case screenInspect:
		a.insp.Focus(right)
	}
}

func (a *App) handleClick(m tea.Mouse) tea.Cmd {
	if m.Button != tea.MouseLeft || a.modal != nil {
		return nil
	}
	if m.Y == 0 { // the tab row
		x := lipgloss.Width(a.brand())
		for s := range numScreens {
			w := lipgloss.Width(a.tab(s))
			if m.X >= x && m.X < x+w {
				return a.setScreen(s)
			}
			x += w
		}
		return nil
	}
	y := m.Y - a.headerHeight()
	switch a.screen {
	case screenData:
		a.data.Click(m.X, y)
	case screenBank:
		a.bank.Click(m.X, y)
		a.bank.Refresh(a.data.Context(), a.data.Candidate())
	case screenSelect:
		a.sel.focusRight = m.X >= a.sel.leftWidth()
	case screenRun:
		if a.run.formShown() {
			lw := max(a.width*2/5, 36)
			a.run.focusRight = m.X >= lw
			if i := y - 2; !a.run.focusRight && i >= 0 && i < len(a.run.form.fields) && !a.run.form.editing {
				a.run.form.cursor = i
			}
			return nil
		}
		a.run.focusRight = m.X >= max(a.width*2/5, 32)
		if !a.run.focusRight {
			a.run.ClickRow(y)
		}
	}
	return nil
}

func (a *App) headerHeight() int { return 2 }

// screenKeys are the current screen's own bindings. The Run screen's
// dashboard shows those that act now: pause and cancel while its run is
// going, start and the judge form otherwise, and enter on a response row.
func (a *App) screenKeys() []key.Binding {
	k := a.keys
	if a.screen != screenRun || a.run.formShown() {
		return k.screenKeys(a.screen)
	}
	if a.run.active() {
		return []key.Binding{k.Pause, k.Cancel, k.Inspect}
	}
	return []key.Binding{k.Start, k.EditJudge, k.Inspect}
}

func (a *App) helpView() string {
	a.help.SetWidth(a.width)
	var out string
	if a.fullHelp {
		groups := a.keys.FullHelpFor(a.screen)
		groups[len(groups)-1] = a.screenKeys()
		out = a.help.FullHelpView(groups)
	} else {
		k := a.keys
		out = a.help.ShortHelpView(append(a.screenKeys(), k.NextScreen, k.Help, k.Quit))
	}
	// help stops adding bindings past the width but can overshoot by one.
	lines := strings.Split(out, "\n")
	for i, ln := range lines {
		lines[i] = ansi.Truncate(ln, a.width, "…")
	}
	return strings.Join(lines, "\n")
}

func (a *App) bodyHeight() int {
	return a.height - a.headerHeight() - lipgloss.Height(a.helpView())
}

func (a *App) layout() {
	h := a.bodyHeight()
	a.data.SetSize(a.width, h)
	a.bank.SetSize(a.width, h)
	a.run.SetSize(a.width, h)
	a.sel.SetSize(a.width, h)
	a.fit.SetSize(a.width, h)
	a.prof.SetSize(a.width, h)
	a.insp.SetSize(a.width, h)
	a.cmp.SetSize(a.width, h)
	if a.screen == screenBank {
		a.bank.Refresh(a.data.Context(), a.data.Candidate())
	}
}

func (a *App) brand() string { return a.styles.Brand.Render("prism") + " " }

func (a *App) tab(s screen) string {
	name := screenNames[s]
	if a.width < 120 {
		name = shortNames[s]
	}
	label := fmt.Sprintf("%d %s", s+1, name)
	if s == screenRun && a.run.active() && a.run.live.prog.Total > 0 {
		p := a.run.live.prog
		label += fmt.Sprintf(" %d%%", 100*p.Done/p.Total)
	}
	if s == screenBank && a.screening != nil && a.screening.prog.Total > 0 {
		p := a.screening.prog
		label += fmt.Sprintf(" %d%%", 100*p.Done/p.Total)
	}
	if s == screenSelect && a.sel.job != nil && a.sel.total > 0 {
		label += fmt.Sprintf(" %d%%", 100*a.sel.done/a.sel.total)
	}
	if s == screenFit && a.fit.job != nil {
		if a.fit.total > 0 {
			label += fmt.Sprintf(" %d%%", 100*a.fit.done/a.fit.total)
		} else {
			label += " …"
		}
	}
	if s == a.screen {
		return a.styles.TabActive.Render(label)
	}
	return a.styles.Tab.Render(label)
}

func (a *App) header() string {
	var tabs strings.Builder
	tabs.WriteString(a.brand())
	for s := range numScreens {
		tabs.WriteString(a.tab(s))
	}
	line1 := tabs.String()
	badge := ""
	switch {
	case a.study.Demo:
		badge = a.styles.Badge.Render("demo")
	case a.study.Store != nil:
		// A long path keeps its end, which names the file.
		path := []rune(a.study.Store.Path())
		if room := a.width - lipgloss.Width(line1) - 1; len(path) > room && room > 8 {
			path = append([]rune("…"), path[len(path)-room+1:]...)
		}
		badge = a.styles.Muted.Render(string(path))
	}
	if gap := a.width - lipgloss.Width(line1) - lipgloss.Width(badge); badge != "" && gap > 0 {
		line1 += strings.Repeat(" ", gap) + badge
	}
	ds := a.study.Dataset
	name := ds.Name
	if name == "" {
		name = "none"
	}
	info := fmt.Sprintf("dataset %s · %d contexts · %d candidates · bank %s %s · judge %s",
		name, len(ds.Contexts), ds.NumCandidates(), a.study.Bank.Name, shortHash(a.bank.bank.Hash()), a.judgeLabel())
	return fit(line1, a.width) + "\n" + a.styles.Header.Render(fit(info, a.width))
}

// judgeLabel names the judge of the form, or the study's when the form
// has the defaults.
func (a *App) judgeLabel() string {
	cfg, _, _, err := a.run.form.Config()
	if err != nil {
		return a.study.Judge
	}
	what := cfg.Backend + ":" + cfg.Model
	if cfg.Backend == judge.BackendOffline {
		what = "simulator"
	}
	name := a.run.form.JudgeName(cfg)
	if name == cfg.Model && cfg.Backend != judge.BackendOffline {
		return what
	}
	return name + " (" + what + ")"
}

// View draws the whole frame.
func (a *App) View() tea.View {
	var body string
	if a.width < minWidth || a.height < minHeight {
		body = fmt.Sprintf("prism needs at least %d×%d; this terminal is %d×%d.", minWidth, minHeight, a.width, a.height)
	} else {
		var screenView string
		switch a.screen {
		case screenData:
			screenView = a.data.View(a.styles)
		case screenRun:
			screenView = a.run.View(a.styles)
		case screenSelect:
			a.sel.judge = a.selectJudge()
			a.sel.current, _ = a.currentKey()
			screenView = a.sel.View(a.styles)
		case screenFit:
			a.fit.judge = a.selectJudge()
			a.fit.stale = a.fitStale()
			screenView = a.fit.View(a.styles)
		case screenProfiles:
			a.prof.stale = a.fitStale()
			screenView = a.prof.View(a.styles)
		case screenInspect:
			a.insp.stale = a.inspectStale()
			screenView = a.insp.View(a.styles)
		case screenCompare:
			a.cmp.stale = a.compareStale()
			screenView = a.cmp.View(a.styles)
		case screenBank:
			screenView = a.bank.View(a.styles, a.bankSignalPanel())
		}
		if a.modal != nil {
			screenView = overlay(screenView, a.modal.View(a, a.styles), a.width, a.bodyHeight())
		}
		body = a.header() + "\n" + screenView + "\n" + a.helpView()
	}
	v := tea.NewView(body)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "prism"
	return v
}
