package inspect

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

func (v *Tab) title() string {
	if v.ins == nil {
		return "Inspect"
	}
	return fmt.Sprintf("Inspect · %s / %s", v.ins.Context, v.ins.Cand)
}

func (v *Tab) View() string {
	st := v.svc.Styles()
	stale := v.Stale()
	innerH := v.height - widgets.PaneChromeH - 1
	if !v.split() {
		w := v.width - widgets.PaneChromeW
		lines := append(v.numberLines(st, stale, w), "")
		lines = append(lines, v.textLines(st, w)...)
		return widgets.Pane(st, true, v.width, v.height, v.title(), widgets.Block(v.scroll[0].Visible(lines), w, innerH))
	}
	lw := v.width / 2
	rw := v.width - lw
	return lipgloss.JoinHorizontal(lipgloss.Top,
		widgets.Pane(st, !v.focusRight, lw, v.height, v.title(), widgets.Block(v.scroll[0].Visible(v.textLines(st, lw-widgets.PaneChromeW)), lw-widgets.PaneChromeW, innerH)),
		widgets.Pane(st, v.focusRight, rw, v.height, "Scores · correction · replies", widgets.Block(v.scroll[1].Visible(v.numberLines(st, stale, rw-widgets.PaneChromeW)), rw-widgets.PaneChromeW, innerH)))
}

// textLines are the source and the candidate text, then the replies.
func (v *Tab) textLines(st *styles.Styles, w int) []string {
	ins := v.ins
	if ins == nil {
		return nil
	}
	lines := []string{st.Label.Render("source")}
	lines = append(lines, widgets.WrapStyled(st.Text, ins.Source, w)...)
	lines = append(lines, "", st.Label.Render("candidate "+ins.Cand))
	lines = append(lines, widgets.WrapStyled(st.Text, ins.Text, w)...)
	lines = append(lines, "", st.Label.Render(fmt.Sprintf("judge replies (%d)", len(ins.Replies))))
	for _, r := range ins.Replies {
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
func (v *Tab) numberLines(st *styles.Styles, stale string, w int) []string {
	lines := v.fitLines(st, stale, w)
	if ins := v.ins; ins != nil {
		lines = append(lines, v.svc.CalibratorTerms(st, ins.Key, ins.Context, ins.Cand, w)...)
	}
	return lines
}

// fitLines are the status, the scores, the correction and the ranks.
func (v *Tab) fitLines(st *styles.Styles, stale string, w int) []string {
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
	lines = append(lines, st.Muted.Render(widgets.Fit(analysis.KeyLine(ins.Key, w), w)))
	if stale != "" {
		lines = append(lines, widgets.WrapStyled(st.Warn, stale, w)...)
	}
	lines = append(lines, fmt.Sprintf("human %s · s0 %s · PRISM ŷ %s", widgets.Num(ins.Human), widgets.Num(ins.S0), widgets.Num(ins.Corrected)))
	if ins.NotInFit != "" {
		return append(lines, widgets.WrapStyled(st.Warn, "not in the fit: "+ins.NotInFit, w)...)
	}
	lines = append(lines, rankLines(ins, w)...)
	if ins.Fold == 0 {
		lines = append(lines, widgets.WrapStyled(st.Warn, "no fit of these answers yet: f fits them and shows the correction here", w)...)
	} else {
		lines = append(lines, widgets.WrapStyled(st.Muted, fmt.Sprintf("β of PRISM in outer fold %d, where this context was tested", ins.Fold), w)...)
	}
	return append(lines, termLines(st, ins, w)...)
}

// termLines are each attribute's and context column's term of the
// correction, and how they make ŷ.
func termLines(st *styles.Styles, ins *Inspection, w int) []string {
	nw := 4
	for _, a := range ins.Attrs {
		nw = max(nw, len([]rune(a.Attr)))
	}
	nw = min(nw, 12)
	row := func(cells ...string) string {
		return fmt.Sprintf("%-*s %5s %5s %6s %6s %8s", nw, widgets.Clip(cells[0], nw), cells[1], cells[2], cells[3], cells[4], cells[5])
	}
	lines := []string{"", st.Label.Render(widgets.Fit(row("attr", "s+", "s−", "Δ+", "Δ−", "term"), w))}
	sum := 0.0
	for _, a := range ins.Attrs {
		sum += a.Term
		// s± and Δ± in s0's two decimals (s+ = s0 + Δ+, s− = s0 − Δ−).
		lines = append(lines, widgets.Fit(row(a.Attr, widgets.Num(a.SPlus), widgets.Num(a.SMinus), widgets.SignedNum(a.DeltaP), widgets.SignedNum(a.DeltaM), widgets.Fixed4(a.Term)), w))
	}
	ctxCols := make([]string, 0, len(ins.CtxTerms))
	for c := range ins.CtxTerms {
		ctxCols = append(ctxCols, c)
	}
	sort.Strings(ctxCols)
	for _, c := range ctxCols {
		sum += ins.CtxTerms[c]
		lines = append(lines, widgets.Fit(row(c, "", "", "", "", widgets.Fixed4(ins.CtxTerms[c])), w))
	}
	// The sum in the terms' four decimals, so that it visibly adds up.
	lines = append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("ŷ = s0 − Σ term = %s − (%s) = %s", num4(ins.S0), widgets.Fixed4(sum), num4(ins.S0-sum)), w)))
	return append(lines, st.Muted.Render(widgets.Fit("term = (CΔ+)β+ + (CΔ−)β−, C: centering in the context", w)))
}

// rankLines are the candidate's ranks in its context (human, before and
// after the correction) in w cells: on one line when it fits, with a
// shorter label if need be, else one rank a line; a rank is never cut.
func rankLines(ins *Inspection, w int) []string {
	parts := []string{
		"human " + widgets.Rank(ins.RankHuman, ins.N),
		"before " + widgets.Rank(ins.RankBefore, ins.N),
		"after " + widgets.Rank(ins.RankAfter, ins.N),
	}
	for _, label := range []string{"rank in context: ", "rank: "} {
		if s := label + strings.Join(parts, " · "); lipgloss.Width(s) <= w {
			return []string{s}
		}
	}
	return append([]string{"rank in context:"}, parts...)
}

// num4 prints a score in the four decimals of the terms, "—" when unknown.
func num4(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return fmt.Sprintf("%.4f", f)
}
