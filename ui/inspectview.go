package ui

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// inspectTab is the Inspect tab: one candidate's texts, its scores
// under every probe with the raw judge replies, each attribute's share of
// the PRISM correction and the candidate's rank in its context before and
// after it. Enter on a candidate of the Data tab opens it; esc returns.
type inspectTab struct {
	ins        *inspection
	busy       bool
	err        error
	gen        int
	back       tab.ID // where esc returns
	stale      string // why ins no longer describes the study, or ""
	focusRight bool
	scroll     [2]int // per pane

	width, height int
}

func (v *inspectTab) SetSize(w, h int) { v.width, v.height = w, h }

func (v *inspectTab) Focus(right bool) { v.focusRight = right }

// Move scrolls the focused pane.
func (v *inspectTab) Move(delta int) {
	i := 0
	if v.focusRight && v.split() {
		i = 1
	}
	v.scroll[i] = max(v.scroll[i]+delta, 0)
}

func (v *inspectTab) split() bool { return v.width >= 120 }

func (v *inspectTab) title() string {
	if v.ins == nil {
		return "Inspect"
	}
	return fmt.Sprintf("Inspect · %s / %s", v.ins.context, v.ins.cand)
}

func (v *inspectTab) View(a *App) string {
	st := a.styles
	v.stale = a.inspectStale()
	innerH := v.height - widgets.PaneChromeH - 1
	scrolled := func(lines []string, i int) []string {
		v.scroll[i] = min(v.scroll[i], max(len(lines)-innerH, 0))
		return lines[v.scroll[i]:]
	}
	if !v.split() {
		w := v.width - widgets.PaneChromeW
		lines := append(v.numberLines(a, st, w), "")
		lines = append(lines, v.textLines(st, w)...)
		return widgets.Pane(st, true, v.width, v.height, v.title(), widgets.Block(scrolled(lines, 0), w, innerH))
	}
	lw := v.width / 2
	rw := v.width - lw
	return lipgloss.JoinHorizontal(lipgloss.Top,
		widgets.Pane(st, !v.focusRight, lw, v.height, v.title(), widgets.Block(scrolled(v.textLines(st, lw-widgets.PaneChromeW), 0), lw-widgets.PaneChromeW, innerH)),
		widgets.Pane(st, v.focusRight, rw, v.height, "Scores · correction · replies", widgets.Block(scrolled(v.numberLines(a, st, rw-widgets.PaneChromeW), 1), rw-widgets.PaneChromeW, innerH)))
}

// textLines are the source and the candidate text, then the replies.
func (v *inspectTab) textLines(st *styles.Styles, w int) []string {
	ins := v.ins
	if ins == nil {
		return nil
	}
	lines := []string{st.Label.Render("source")}
	lines = append(lines, widgets.WrapStyled(st.Text, ins.source, w)...)
	lines = append(lines, "", st.Label.Render("candidate "+ins.cand))
	lines = append(lines, widgets.WrapStyled(st.Text, ins.text, w)...)
	lines = append(lines, "", st.Label.Render(fmt.Sprintf("judge replies (%d)", len(ins.replies))))
	for _, r := range ins.replies {
		head := fmt.Sprintf("%s · wording %s · run %s · score %s", r.Probe, r.Wording, r.Run, widgets.Compact(r.Score))
		raw := strings.TrimSpace(judge.SanitizeServerText(r.Raw)) // a reply is shown, never obeyed
		if raw == "" {
			// The offline simulator answers with a score and no text.
			lines = append(lines, st.Muted.Render(widgets.Fit(head+" · no text", w)))
			continue
		}
		lines = append(lines, st.Muted.Render(widgets.Fit(head, w)))
		lines = append(lines, widgets.WrapStyled(st.Text, raw, w)...)
	}
	return lines
}

// numberLines are the status, the scores, the correction and the ranks,
// then the terms of the loaded calibrator.
func (v *inspectTab) numberLines(a *App, st *styles.Styles, w int) []string {
	return append(v.fitLines(st, w), a.calInspectLines(st, v.ins, w)...)
}

// fitLines are the status, the scores, the correction and the ranks.
func (v *inspectTab) fitLines(st *styles.Styles, w int) []string {
	var lines []string
	if v.busy {
		lines = append(lines, st.Title.Render("reading the answers…"))
	}
	if v.err != nil {
		lines = append(lines, widgets.WrapStyled(st.Bad, v.err.Error(), w)...)
	}
	ins := v.ins
	if ins == nil {
		if !v.busy && v.err == nil {
			lines = append(lines, widgets.WrapStyled(st.Muted, "enter on a candidate of the Data tab, or on a response of the Run tab, inspects it", w)...)
		}
		return lines
	}
	lines = append(lines, st.Muted.Render(widgets.Fit(keyLine(ins.key, w), w)))
	if v.stale != "" {
		lines = append(lines, widgets.WrapStyled(st.Warn, v.stale, w)...)
	}
	lines = append(lines, fmt.Sprintf("human %s · s0 %s · PRISM ŷ %s", widgets.Num(ins.human), widgets.Num(ins.s0), widgets.Num(ins.corrected)))
	if ins.notInFit != "" {
		return append(lines, widgets.WrapStyled(st.Warn, "not in the fit: "+ins.notInFit, w)...)
	}
	lines = append(lines, rankLines(ins, w)...)
	if ins.fold == 0 {
		lines = append(lines, widgets.WrapStyled(st.Warn, "no fit of these answers yet: f fits them and shows the correction here", w)...)
	} else {
		lines = append(lines, widgets.WrapStyled(st.Muted, fmt.Sprintf("β of PRISM in outer fold %d, where this context was tested", ins.fold), w)...)
	}
	nw := 4
	for _, a := range ins.attrs {
		nw = max(nw, len([]rune(a.Attr)))
	}
	nw = min(nw, 12)
	row := func(cells ...string) string {
		return fmt.Sprintf("%-*s %5s %5s %6s %6s %8s", nw, widgets.Clip(cells[0], nw), cells[1], cells[2], cells[3], cells[4], cells[5])
	}
	lines = append(lines, "", st.Label.Render(widgets.Fit(row("attr", "s+", "s−", "Δ+", "Δ−", "term"), w)))
	sum := 0.0
	for _, a := range ins.attrs {
		sum += a.Term
		lines = append(lines, widgets.Fit(row(a.Attr, widgets.Compact(a.SPlus), widgets.Compact(a.SMinus), signedNum(a.DeltaP), signedNum(a.DeltaM), widgets.Fixed4(a.Term)), w))
	}
	ctxCols := make([]string, 0, len(ins.ctxTerms))
	for c := range ins.ctxTerms {
		ctxCols = append(ctxCols, c)
	}
	sort.Strings(ctxCols)
	for _, c := range ctxCols {
		sum += ins.ctxTerms[c]
		lines = append(lines, widgets.Fit(row(c, "", "", "", "", widgets.Fixed4(ins.ctxTerms[c])), w))
	}
	lines = append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("ŷ = s0 − Σ term = %s − (%s) = %s", widgets.Num(ins.s0), widgets.Fixed4(sum), widgets.Num(ins.s0-sum)), w)))
	lines = append(lines, st.Muted.Render(widgets.Fit("term = (CΔ+)β+ + (CΔ−)β−, C: centering in the context", w)))
	return lines
}

// keyLine names the judge, bank version and dataset of an inspection in
// w cells: the dataset gives way first, then the bank; the judge's name is
// cut in its middle only when it alone does not fit.
func keyLine(k studyKey, w int) string {
	for _, s := range []string{
		fmt.Sprintf("judge %s · bank %s · dataset %s", k.Judge, shortHash(k.BankHash), k.Dataset),
		fmt.Sprintf("judge %s · bank %s", k.Judge, shortHash(k.BankHash)),
	} {
		if lipgloss.Width(s) <= w {
			return s
		}
	}
	return "judge " + widgets.ClipMiddle(k.Judge, w-len("judge "))
}

// rankLines are the candidate's ranks in its context (human, before and
// after the correction) in w cells: on one line when it fits, with a
// shorter label if need be, else one rank a line; a rank is never cut.
func rankLines(ins *inspection, w int) []string {
	parts := []string{
		"human " + rankText(ins.rankHuman, ins.n),
		"before " + rankText(ins.rankBefore, ins.n),
		"after " + rankText(ins.rankAfter, ins.n),
	}
	for _, label := range []string{"rank in context: ", "rank: "} {
		if s := label + strings.Join(parts, " · "); lipgloss.Width(s) <= w {
			return []string{s}
		}
	}
	return append([]string{"rank in context:"}, parts...)
}

// signedNum prints a difference with its sign and 2 decimals, or "—".
func signedNum(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return fmt.Sprintf("%+.2f", f)
}

// Keys are the Inspect tab's own bindings.
func (v *inspectTab) Keys(a *App) []key.Binding {
	k := a.keys
	return []key.Binding{k.Back, k.NextCand, k.Refit}
}

func (v *inspectTab) Badge(*App) string { return "" }
func (v *inspectTab) Editing() bool     { return false }

// Update handles the Inspect tab's keys and navigation and the
// inspections it asked for.
func (v *inspectTab) Update(a *App, msg tea.Msg) tea.Cmd {
	k := a.keys
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.Move(msg.Delta)
	case tab.FocusMsg:
		v.Focus(msg.Right)
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Back):
			return a.setTab(v.back)
		case key.Matches(msg, k.Refit):
			return a.fit.refit(a)
		case key.Matches(msg, k.NextCand):
			return v.step(a, 1)
		case key.Matches(msg, k.PrevCand):
			return v.step(a, -1)
		}
	case inspectMsg:
		if msg.gen == v.gen {
			v.busy, v.ins, v.err = false, msg.ins, msg.err
		}
	}
	return nil
}
