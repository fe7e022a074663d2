package bank

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textarea"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// Tab is the Bank tab: every probe condition of the bank on the
// left and, on the right, the exact request the judge receives for the
// candidate selected on the Data tab. Wordings are edited in place
// (bankedit.go).
type Tab struct {
	svc        Services
	keys       KeyMap
	dialogKeys tab.DialogKeys
	bank       *banks.Bank
	source     string // "builtin:NAME", a file, or "… (edited)"
	origHash   string // the hash the bank was opened with
	savedHash  string // the hash last opened or saved; another has unsaved edits
	task       string
	conds      []banks.Condition
	list       widgets.List
	focusRight bool
	scroll     widgets.Scroll // the preview's
	preview    []string       // wrapped preview lines, rebuilt on selection
	previewErr error

	editing    bool
	target     editTarget
	input      textarea.Model
	listOffset int    // the list's scroll when the edit began, restored after
	status     string // the last edit's outcome
	statusErr  bool

	// The signal panel (screening.go): reports by study key, whether one
	// is being computed, and a screen of the bank in flight.
	sig       map[study.Key]bankSignal
	sigBusy   bool
	screening *screening
	order     orderState // the presentation-order section (orderpanel.go)
	diag      diagPanel  // wording, joint and resolution (wordingpanel.go)

	width, height int
}

// New is the Bank tab of b (a built-in) for data of task.
func New(svc Services, keys KeyMap, dialogKeys tab.DialogKeys, b *banks.Bank, task string) *Tab {
	v := &Tab{svc: svc, keys: keys, dialogKeys: dialogKeys, task: task, sig: map[study.Key]bankSignal{}}
	v.Open(b, "builtin:"+b.Name)
	return v
}

// Open shows a bank just read (a built-in or a file): its version is the
// one the title's "(edited)" and unsaved edits are measured from.
func (v *Tab) Open(b *banks.Bank, source string) {
	v.setBank(b, source)
	v.origHash = b.Hash()
	v.savedHash = v.origHash
}

// Unsaved is whether the bank differs from the version last opened or
// saved: b, q and a dataset that needs another bank ask before dropping it.
func (v *Tab) Unsaved() bool { return v.bank.Hash() != v.savedHash }

// Bank is the bank as last committed (every edit validates first).
func (v *Tab) Bank() *banks.Bank { return v.bank }

// Source names where the bank came from: "builtin:NAME", a file, or
// "… (edited)".
func (v *Tab) Source() string { return v.source }

// SetSource names where the bank came from (the session's bank file).
func (v *Tab) SetSource(s string) { v.source = s }

// SetTask is the task of the dataset the preview renders.
func (v *Tab) SetTask(task string) { v.task = task }

// setBank shows b (already validated) and rebuilds the condition list.
func (v *Tab) setBank(b *banks.Bank, source string) {
	v.bank, v.source = b, source
	v.conds = b.Conditions()
	rows := make([]string, len(v.conds))
	for i, c := range v.conds {
		rows[i] = conditionLabel(c)
	}
	v.list.SetRows(rows)
	v.scroll.Top()
}

func conditionLabel(c banks.Condition) string {
	if c.Probe == "baseline" {
		return "baseline"
	}
	if strings.HasSuffix(c.Probe, ":+") || strings.HasSuffix(c.Probe, ":-") {
		return fmt.Sprintf("%s  w%d", c.Probe, c.Wording+1)
	}
	return c.Probe
}

func (v *Tab) leftWidth() int { return max(v.width/3, 30) }

func (v *Tab) SetSize(w, h int) {
	v.width, v.height = w, h
	v.layout()
	v.clampScroll()
}

// layout sizes the list and, while editing, the text area below it.
func (v *Tab) layout() {
	iw := v.leftWidth() - widgets.PaneChromeW
	v.list.SetSize(iw, v.listHeight())
	if v.editing {
		v.input.SetWidth(iw)
		v.input.SetHeight(v.editHeight())
	}
}

// bodyHeight is the height inside the left pane.
func (v *Tab) bodyHeight() int { return v.height - widgets.PaneChromeH - 1 }

// The list leaves four lines for the rule, the selected wording and the
// status; while editing, it leaves the text area, its label and a status
// line.
func (v *Tab) listHeight() int {
	if v.editing {
		return max(v.bodyHeight()-v.editHeight()-2, 1)
	}
	return max(v.bodyHeight()-4, 1)
}

// editHeight is the text area's height: a third of the pane, so a wording
// shows whole at 80×24 (it wraps to a few lines) and the list stays in view.
func (v *Tab) editHeight() int { return min(max(v.bodyHeight()/3, 3), 6) }

func (v *Tab) Focus(right bool) { v.focusRight = right }

// Move moves the condition cursor, or scrolls the preview when it has focus.
func (v *Tab) Move(delta int) {
	if v.focusRight {
		v.scroll.Move(delta)
		return
	}
	v.list.Move(delta)
	v.scroll.Top()
}

// Click selects the condition under a click at (x, y), relative to the view.
func (v *Tab) Click(x, y int) {
	if x >= v.leftWidth() {
		v.focusRight = true
		return
	}
	v.focusRight = false
	if i := v.list.RowAt(y - 2); i >= 0 {
		v.list.Select(i)
		v.scroll.Top()
	}
}

// Refresh re-renders the preview for the Data tab's candidate (after the
// dataset or the window changed).
func (v *Tab) Refresh() {
	v.refresh()
	v.clampScroll()
}

// render re-renders the preview for a context and candidate. Rendering is
// pure computation on in-memory text, so it is fine inside Update.
func (v *Tab) render(c *model.Context, cand *model.Candidate) {
	v.preview, v.previewErr = nil, nil
	if c == nil || cand == nil || len(v.conds) == 0 {
		return
	}
	b, cond := v.bank, v.selected()
	if v.editing && (v.target == editWording || v.target == editClause) {
		// The preview follows the text as it is typed.
		nb := v.edited(v.editValue())
		if err := nb.Validate(); err != nil {
			v.previewErr = fmt.Errorf("as typed: %s", firstLine(err.Error()))
			return
		}
		var err error
		if cond, err = nb.Condition(cond.Probe, cond.Wording); err != nil {
			v.previewErr = err
			return
		}
		b = nb
	}
	req, err := b.Render(v.task, *c, *cand, cond)
	if err != nil {
		v.previewErr = err
		return
	}
	w := v.width - v.leftWidth() - widgets.PaneChromeW
	for _, m := range req.Messages {
		v.preview = append(v.preview, "\x00"+m.Role)
		for _, para := range strings.Split(m.Content, "\n") {
			v.preview = append(v.preview, widgets.Wrap(para, w)...)
		}
		v.preview = append(v.preview, "")
	}
}

// title names the bank and its version in w cells; an edited bank shows
// that it is a new version. When it does not fit, the hash gives way
// first, then the name is clipped in the middle: "(edited)" always shows.
func (v *Tab) title(w int) string {
	h := v.bank.Hash()
	mark := ""
	if h != v.origHash {
		mark = " (edited)"
	}
	if t := fmt.Sprintf("%s · %.7s%s", v.bank.Name, h, mark); ansi.StringWidth(t) <= w {
		return t
	}
	return widgets.ClipMiddle(v.bank.Name, max(w-ansi.StringWidth(mark), 3)) + mark
}

// View draws the tab; with a workspace open, the right pane starts
// with the signal panel and the preview follows it.
func (v *Tab) View() string {
	st := v.svc.Styles()
	lw := v.leftWidth()
	body := v.list.View(st, !v.focusRight && !v.editing) + "\n" +
		widgets.Block(v.footLines(st, lw-widgets.PaneChromeW), lw-widgets.PaneChromeW, v.bodyHeight()-v.list.Height())
	left := widgets.Pane(st, !v.focusRight, lw, v.height, v.title(lw-widgets.PaneChromeW), body)
	return lipgloss.JoinHorizontal(lipgloss.Top, left, v.rightPane(st))
}

// footLines are the left pane's lines under the list, iw wide: the
// selected wording (or the text area) and the status.
func (v *Tab) footLines(st *styles.Styles, iw int) []string {
	var foot []string
	switch {
	case v.editing:
		foot = append([]string{st.Label.Render(editLabel(v.target))}, strings.Split(v.input.View(), "\n")...)
	default:
		c := v.selected()
		text := c.Instruction
		if c.Probe == "baseline" {
			text = "(no added instruction)"
		}
		// One line: a wording's newlines show as spaces.
		text = strings.ReplaceAll(text, "\n", " ")
		foot = []string{st.Muted.Render(strings.Repeat("─", iw)), st.Text.Render(widgets.Clip(text, iw))}
	}
	// The status gets two lines: an edit's outcome names the new version.
	status := []string{st.Muted.Render("enter edit · c clause · a add · x remove")}
	if v.status != "" {
		style := st.Good
		if v.statusErr {
			style = st.Bad
		}
		status = widgets.WrapStyled(style, v.status, iw)
		if len(status) > 2 {
			status = append(status[:1], style.Render(widgets.Clip(strings.Join(widgets.Wrap(v.status, iw)[1:], " "), iw)))
		}
	}
	if v.editing {
		// The tab's keys do not work in the editor; its own do.
		status = nil
		if v.target == editWording {
			status = []string{st.Muted.Render("alt+enter: new line")}
		}
	}
	return append(foot, status...)
}

// previewTitle names the preview and the selected condition.
func (v *Tab) previewTitle() string {
	if len(v.conds) > 0 {
		return "Request preview · " + v.selected().Probe
	}
	return "Request preview"
}

// panelTop is what the right pane shows above the preview when a
// workspace is open: the panel's title line, its lines, the preview's
// title (the preview keeps at least four of the innerH lines); nil
// without a workspace.
func (v *Tab) panelTop(st *styles.Styles, innerW, innerH int) []string {
	panel := v.panel()
	if !panel.shown {
		return nil
	}
	top := append(panel.signalLines(st, innerW), v.order.orderLines(st, innerW)...)
	top = append(top, v.diag.lines(v.svc, v.bank, st, innerW)...)
	return append(top[:min(len(top), max(innerH-5, 1))], st.Title.Render(widgets.Fit(v.previewTitle(), innerW)))
}

// rightPane is the panel and the request preview, scrolled.
func (v *Tab) rightPane(st *styles.Styles) string {
	rw := v.width - v.leftWidth()
	innerW, innerH := rw-widgets.PaneChromeW, v.height-widgets.PaneChromeH-1
	top := v.panelTop(st, innerW, innerH)
	innerH -= len(top)
	var lines []string
	switch {
	case v.previewErr != nil:
		lines = widgets.WrapStyled(st.Bad, v.previewErr.Error(), innerW)
	case v.preview == nil:
		lines = []string{st.Muted.Render("no candidate selected")}
	default:
		for _, ln := range v.scroll.Visible(v.preview) {
			if role, ok := strings.CutPrefix(ln, "\x00"); ok {
				ln = st.Label.Render(role)
			}
			lines = append(lines, ln)
		}
	}
	title, body := v.previewTitle(), widgets.Block(lines, innerW, innerH)
	if top != nil {
		title, top = top[0], top[1:]
		body = widgets.Block(top, innerW, len(top)) + "\n" + body
	}
	return widgets.Pane(st, v.focusRight, rw, v.height, title, body)
}

// clampScroll fits the preview's scroll to its lines and to the height
// the panel leaves it: called after every change (Update, SetSize, the
// App's calls), so that View only reads it. A preview that shows an error
// or nothing keeps its scroll for when it is back.
func (v *Tab) clampScroll() {
	rw := v.width - v.leftWidth()
	innerW, innerH := rw-widgets.PaneChromeW, v.height-widgets.PaneChromeH-1
	v.scroll.SetHeight(innerH - len(v.panelTop(v.svc.Styles(), innerW, innerH)))
	if v.previewErr == nil && v.preview != nil {
		v.scroll.SetLines(len(v.preview))
	}
}

func editLabel(t editTarget) string {
	switch t {
	case editClause:
		return "clause (enter keeps, esc drops)"
	case editNewAttr:
		return "new attribute  name: clause"
	case editSave:
		return "save bank to file"
	}
	return "wording (enter keeps, esc drops)"
}
