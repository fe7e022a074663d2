package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	banktab "github.com/prism-eval/prism/ui/tabs/bank"
	"github.com/prism-eval/prism/ui/tabs/compare"
	datatab "github.com/prism-eval/prism/ui/tabs/data"
	"github.com/prism-eval/prism/ui/tabs/fit"
	"github.com/prism-eval/prism/ui/tabs/inspect"
	"github.com/prism-eval/prism/ui/tabs/profiles"
	runtab "github.com/prism-eval/prism/ui/tabs/run"
	"github.com/prism-eval/prism/ui/tabs/selection"
	"github.com/prism-eval/prism/ui/widgets"
)

// Minimum layout; smaller terminals get a notice instead of a broken frame.
const minWidth, minHeight = 60, 16

// App is the root Bubble Tea model.
type App struct {
	ctx      context.Context
	now      func() time.Time
	study    Session
	styles   *styles.Styles
	keys     KeyMap
	help     help.Model
	tab      tab.ID
	fullHelp bool

	data *datatab.Tab
	bank *banktab.Tab
	run  *runtab.Tab
	sel  *selection.Tab
	fit  *fit.Tab
	prof *profiles.Tab
	insp *inspect.Tab
	cmp  *compare.Tab

	modal modal // a dialog over the tab, or nil

	// The calibrator loaded on the Data tab and its application to a
	// dataset, which the Data and Inspect tabs show (calibrator.go).
	cal calibState

	// quitAfterRun: quit was confirmed while a run or a screen was
	// going; its end quits. newJudges builds a run's judges (the Run
	// tab's and a screen's; tests swap them).
	quitAfterRun bool
	newJudges    runtab.JudgeFactory
	importDir    string // where the import file picker starts

	// What tells a tab its results are stale: a version per study,
	// bumped when a run or a screen of the bank stores its answers.
	versions study.Versions

	width, height int
}

// New builds the App for a study. The styles assume a dark background until
// the terminal reports its colour.
func New(s Session) *App {
	a := &App{
		ctx:       context.Background(),
		now:       time.Now,
		newJudges: runtab.DefaultJudges,
		importDir: ".",
		study:     s,
		keys:      DefaultKeyMap(),
		help:      help.New(),
		width:     80,
		height:    24,
	}
	a.data = a.newDataTab(s.Dataset)
	a.bank = a.newBankTab(s.Bank, s.Dataset.Task)
	a.run = runtab.New(services{a}, runtab.DefaultKeyMap(), s.Config)
	a.sel = selection.New(services{a}, selection.DefaultKeyMap())
	a.fit = fit.New(services{a}, fit.DefaultKeyMap(), a.keys.dialog(), defaultExportDir(s))
	a.prof = profiles.New(services{a}, profiles.DefaultKeyMap())
	a.cmp = compare.New(services{a}, compare.DefaultKeyMap())
	a.insp = inspect.New(services{a}, inspect.DefaultKeyMap())
	if s.BankSource != "" {
		a.bank.SetSource(s.BankSource)
	}
	if len(s.Datasets) > 1 && !s.PickedDataset {
		a.openDialog(datatab.NewChooser(services{a}, a.keys.dialog(), s.Datasets, s.Dataset.Name))
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
// and plans the first run, so the estimate is ready on the Run tab.
func (a *App) Init() tea.Cmd {
	return tea.Batch(tea.RequestBackgroundColor, a.run.Replan(), a.fit.Init())
}

// Update handles what is shared (size, colours, the tab bar, the common
// keys, modals, the study's dataset and the plan of the next run) and
// dispatches the rest to the tabs (see tab.Tab).
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
		if a.cur().Editing() {
			return a, a.cur().Update(a, msg)
		}
	case tea.MouseClickMsg:
		return a, a.handleClick(msg.Mouse())
	case tea.MouseWheelMsg:
		switch msg.Mouse().Button {
		case tea.MouseWheelUp:
			return a, a.cur().Update(a, tab.MoveMsg{Delta: -1})
		case tea.MouseWheelDown:
			return a, a.cur().Update(a, tab.MoveMsg{Delta: 1})
		}
	default:
		// An open dialog's messages (file listings, imports, saves), then
		// the tabs' work and their text inputs' pastes.
		cmds := make([]tea.Cmd, 0, tab.Count+2)
		cmds = append(cmds, a.onTabMsg(msg))
		if a.modal != nil {
			cmds = append(cmds, a.modal.Update(a, msg))
		} else {
			cmds = append(cmds, a.onStudyMsg(msg))
		}
		for _, sc := range a.tabs() {
			cmds = append(cmds, sc.Update(a, msg))
		}
		return a, tab.Batch(cmds...)
	}
	return a, nil
}

// onStudyMsg takes the messages that change the study itself: the
// workspace's datasets and a dataset read from it.
func (a *App) onStudyMsg(msg tea.Msg) tea.Cmd { return a.onDatasetMsg(msg) }

func (a *App) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if a.modal != nil {
		return a.modal.Update(a, msg)
	}
	cur := a.cur()
	if cur.Editing() {
		return cur.Update(a, msg)
	}
	k := a.keys
	if s := k.jumpTo(msg); s >= 0 {
		return a.setTab(s)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return a.quit()
	case key.Matches(msg, k.Help):
		a.fullHelp = !a.fullHelp
		a.layout()
	case key.Matches(msg, k.NextTab):
		return a.setTab((a.tab + 1) % tab.Count)
	case key.Matches(msg, k.PrevTab):
		return a.setTab((a.tab + tab.Count - 1) % tab.Count)
	case key.Matches(msg, k.Up):
		return cur.Update(a, tab.MoveMsg{Delta: -1})
	case key.Matches(msg, k.Down):
		return cur.Update(a, tab.MoveMsg{Delta: 1})
	case key.Matches(msg, k.PageUp):
		return cur.Update(a, tab.MoveMsg{Delta: -a.pageRows()})
	case key.Matches(msg, k.PageDown):
		return cur.Update(a, tab.MoveMsg{Delta: a.pageRows()})
	case key.Matches(msg, k.Top):
		return cur.Update(a, tab.MoveMsg{Delta: -1 << 30})
	case key.Matches(msg, k.Bottom):
		return cur.Update(a, tab.MoveMsg{Delta: 1 << 30})
	case key.Matches(msg, k.Left):
		return cur.Update(a, tab.FocusMsg{Right: false})
	case key.Matches(msg, k.Right):
		return cur.Update(a, tab.FocusMsg{Right: true})
	default:
		return cur.Update(a, msg)
	}
	return nil
}

// quit quits, after asking when a run or a screen of the bank is going
// or the bank has unsaved edits.
func (a *App) quit() tea.Cmd {
	if a.busy() || a.bank.Unsaved() {
		a.modal = confirmQuit{}
		return nil
	}
	return tea.Quit
}

func (a *App) pageRows() int { return max(a.bodyHeight()-4, 1) }

// setTab shows tab s; a tab that follows others' state while it
// is shown (the Bank tab's preview and signal panel) catches up.
func (a *App) setTab(s tab.ID) tea.Cmd {
	a.tab = s
	if sh, ok := a.cur().(interface{ Shown(*App) tea.Cmd }); ok {
		return sh.Shown(a)
	}
	return nil
}

func (a *App) handleClick(m tea.Mouse) tea.Cmd {
	if m.Button != tea.MouseLeft || a.modal != nil {
		return nil
	}
	if m.Y == 0 { // the tab row
		x := lipgloss.Width(a.brand())
		for s := range tab.Count {
			w := lipgloss.Width(a.tabLabel(s))
			if m.X >= x && m.X < x+w {
				return a.setTab(s)
			}
			x += w
		}
		return nil
	}
	return a.cur().Update(a, tab.ClickMsg{X: m.X, Y: m.Y - a.headerHeight()})
}

func (a *App) headerHeight() int { return 2 }

func (a *App) helpView() string {
	var out string
	if a.fullHelp {
		a.help.SetWidth(a.width)
		out = a.help.FullHelpView(append(a.keys.commonHelp(), a.cur().Keys(a)))
	} else {
		k := a.keys
		out = a.shortHelp(append(a.cur().Keys(a), k.NextTab), k.Help, k.Quit)
	}
	// help stops adding bindings past the width but can overshoot by one.
	lines := strings.Split(out, "\n")
	for i, ln := range lines {
		lines[i] = ansi.Truncate(ln, a.width, "…")
	}
	return strings.Join(lines, "\n")
}

// shortHelp is the one-line help of lead then tail, tail always shown:
// when the line is too wide, lead's last entries go first, so however
// narrow the terminal "? more keys" and "q quit" end the line (the help
// model alone drops from the end).
func (a *App) shortHelp(lead []key.Binding, tail ...key.Binding) string {
	a.help.SetWidth(0) // measured here, not cut by the model
	defer a.help.SetWidth(a.width)
	for n := len(lead); n > 0; n-- {
		out := a.help.ShortHelpView(append(slices.Clip(lead[:n]), tail...))
		if lipgloss.Width(out) <= a.width {
			return out
		}
	}
	return a.help.ShortHelpView(tail)
}

func (a *App) bodyHeight() int {
	return a.height - a.headerHeight() - lipgloss.Height(a.helpView())
}

func (a *App) layout() {
	h := a.bodyHeight()
	for _, sc := range a.tabs() {
		sc.SetSize(a.width, h)
	}
	if a.tab == tab.Bank {
		// The Bank tab's preview is wrapped to its width.
		a.bank.Refresh()
	}
}

func (a *App) brand() string { return a.styles.Brand.Render("prism") + " " }

func (a *App) tabLabel(s tab.ID) string {
	name := tab.Names[s]
	if a.width < 120 {
		name = tab.ShortNames[s]
	}
	label := fmt.Sprintf("%d %s", s+1, name) + a.tabs()[s].Badge(a)
	if s == a.tab {
		return a.styles.TabActive.Render(label)
	}
	return a.styles.Tab.Render(label)
}

func (a *App) header() string {
	var tabs strings.Builder
	tabs.WriteString(a.brand())
	for s := range tab.Count {
		tabs.WriteString(a.tabLabel(s))
	}
	line1 := tabs.String()
	badge := ""
	switch {
	case a.study.Demo:
		label := "demo"
		if a.study.Workspace != "" {
			label = a.study.Workspace
		}
		badge = a.styles.Badge.Render(label)
	case a.study.Store != nil:
		// A long path keeps its end, which names the file.
		path := []rune(a.study.Store.Path())
		if a.study.Workspace != "" {
			path = []rune(a.study.Workspace)
		}
		if room := a.width - lipgloss.Width(line1) - 1; len(path) > room && room > 8 {
			path = append([]rune("…"), path[len(path)-room+1:]...)
		}
		badge = a.styles.Muted.Render(string(path))
	}
	if gap := a.width - lipgloss.Width(line1) - lipgloss.Width(badge); badge != "" && gap > 0 {
		line1 += strings.Repeat(" ", gap) + badge
	}
	return widgets.Fit(line1, a.width) + "\n" + a.styles.Header.Render(widgets.Fit(a.studyLine(), a.width))
}

// studyLine is the header's second line: the dataset, the bank version
// and the judge. On a narrow terminal the less telling parts give way
// first (the words of the counts, the counts, the bank's hash, the
// word "dataset"); the judge's name is cut in its middle only when
// nothing else is left to give, so that its end (a mode, a backend)
// stays readable.
func (a *App) studyLine() string {
	ds := a.study.Dataset
	name := ds.Name
	if name == "" {
		name = "none"
	}
	bank, hash, judge := a.study.Bank.Name, shortHash(a.bank.Bank().Hash()), a.judgeLabel()
	nc, nk := len(ds.Contexts), ds.NumCandidates()
	for _, s := range []string{
		fmt.Sprintf("dataset %s · %d contexts · %d candidates · bank %s %s · judge %s", name, nc, nk, bank, hash, judge),
		fmt.Sprintf("dataset %s · %d ctx · %d cand · bank %s %.7s · judge %s", name, nc, nk, bank, hash, judge),
		fmt.Sprintf("data %s · %d ctx · %d cand · bank %s %.7s · judge %s", name, nc, nk, bank, hash, judge),
		fmt.Sprintf("data %s · bank %s %.7s · judge %s", name, bank, hash, judge),
		fmt.Sprintf("data %s · bank %s · judge %s", name, bank, judge),
	} {
		if ansi.StringWidth(s) <= a.width {
			return s
		}
	}
	// The names share what is left, the judge's first.
	name, bank = widgets.ClipMiddle(name, 12), widgets.ClipMiddle(bank, 12)
	room := a.width - ansi.StringWidth(fmt.Sprintf("data %s · bank %s · judge ", name, bank))
	return fmt.Sprintf("data %s · bank %s · judge %s", name, bank, widgets.ClipMiddle(judge, max(room, 8)))
}

// judgeLabel names the judge of the form, or the study's when the form
// has the defaults.
func (a *App) judgeLabel() string {
	cfg, name, err := a.run.Judge()
	if err != nil {
		return a.study.Judge
	}
	what := cfg.Backend + ":" + cfg.Model
	if cfg.Backend == judge.BackendOffline {
		what = "simulator"
	}
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
		tabView := a.cur().View(a)
		if a.modal != nil {
			tabView = widgets.Overlay(tabView, a.modal.View(a, a.styles), a.width, a.bodyHeight())
		}
		body = a.header() + "\n" + tabView + "\n" + a.helpView()
	}
	v := tea.NewView(body)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "prism"
	return v
}

// shortHash names a bank version (widgets.ShortHash).
func shortHash(h string) string { return widgets.ShortHash(h) }
