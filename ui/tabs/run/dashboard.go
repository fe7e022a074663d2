package run

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/ratio"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// statusWord names the run's state.
func (v *Tab) statusWord(st *styles.Styles) string {
	lr := v.live
	switch lr.phase {
	case PhaseStarting:
		return st.Warn.Render("starting")
	case PhaseCanceling:
		return st.Warn.Render("canceling")
	case PhaseStored:
		return st.Good.Render("stored")
	case PhaseDone:
		switch {
		case lr.err != nil:
			return st.Bad.Render("stopped")
		case lr.summary != nil && lr.summary.Canceled:
			return st.Warn.Render("canceled")
		}
		return st.Good.Render("finished")
	}
	if lr.prog.Paused {
		return st.Warn.Render("paused")
	}
	return st.Good.Render("running")
}

// progressBar is the status word, a bar of done/total and counts.
func (v *Tab) progressBar(st *styles.Styles, word string, done, total int, counts string) string {
	return widgets.ProgressBar(st, word, done, total, counts, v.width)
}

// storedLines are the progress lines of a stored study (PhaseStored):
// what the workspace holds, not a run.
func (v *Tab) storedLines(st *styles.Styles) []string {
	sp := v.live.stored
	line1 := v.progressBar(st, v.statusWord(st), sp.Answered, sp.Requests, fmt.Sprintf(" %d/%d answered", sp.Answered, sp.Requests))
	line2 := fmt.Sprintf("nothing left to send: all answered before (a run or the Bank screen) · failed attempts %d · e edits the judge", sp.Failures)
	return []string{widgets.Fit(line1, v.width), widgets.Fit(st.Muted.Render(line2), v.width)}
}

func (v *Tab) progressLines(st *styles.Styles) []string {
	if v.live.phase == PhaseStored {
		return v.storedLines(st)
	}
	p := v.live.prog
	frac := 0.0
	if p.Total > 0 {
		frac = float64(p.Done) / float64(p.Total)
	}
	line1 := v.progressBar(st, v.statusWord(st), p.Done, p.Total, fmt.Sprintf(" %d/%d %5.1f%%", p.Done, p.Total, 100*frac))

	errs := fmt.Sprintf("errors %d", p.Failed)
	if p.Failed > 0 {
		kinds := make([]string, 0, len(p.Errors))
		for k, n := range p.Errors {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(kinds)
		errs = st.Bad.Render(errs + " (" + strings.Join(kinds, ", ") + ")")
	}
	cost := "cost —"
	if p.Priced {
		cost = fmt.Sprintf("cost $%.2f", p.Cost)
	}
	// Only a going run has an ETA; a paused one's rate and ETA (over its
	// active time) stand still, and it says so.
	parts := []string{fmt.Sprintf("%.0f req/s", p.Rate)}
	switch {
	case v.live.phase != PhaseRunning && v.live.phase != PhaseStarting:
	case p.Paused && p.ETA > 0:
		parts = append(parts, "ETA "+widgets.ShortDuration(p.ETA)+" once resumed")
	case p.Paused:
		parts = append(parts, "ETA — (paused)")
	case p.ETA > 0:
		parts = append(parts, "ETA "+widgets.ShortDuration(p.ETA))
	default:
		parts = append(parts, "ETA —")
	}
	parts = append(parts, "elapsed "+widgets.ShortDuration(p.Elapsed),
		fmt.Sprintf("tokens %s in · %s out", widgets.HumanCount(p.PromptTokens), widgets.HumanCount(p.CompletionTokens)),
		cost, errs)
	if p.CacheHits > 0 {
		parts = append(parts, fmt.Sprintf("cached %d", p.CacheHits))
	}
	if p.DroppedEvents > 0 {
		parts = append(parts, fmt.Sprintf("display skipped %d", p.DroppedEvents))
	}
	line2 := strings.Join(parts, " · ")
	if why := p.Why(p.At); why != "" && v.live.phase == PhaseRunning {
		line2 = st.Warn.Render(why) // why the run is not moving comes first
	}
	if v.live.err != nil {
		line2 = st.Bad.Render(v.live.err.Error())
	}
	return []string{widgets.Fit(line1, v.width), widgets.Fit(line2, v.width)}
}

func (v *Tab) dashboard(st *styles.Styles) string {
	head := v.progressLines(st)
	h := v.height - len(head)
	lw := max(v.width*2/5, 32)
	rw := v.width - lw
	innerH := h - widgets.PaneChromeH - 1
	// A stored study (no run in this session) lists its stored answers
	// in the same table, so that ↓ and enter inspect them too.
	title := "Latest responses"
	if v.live.phase == PhaseStored {
		title = "Stored responses"
	}
	left := widgets.Pane(st, !v.focusRight, lw, h, title, widgets.Block(v.tableLines(st, lw-widgets.PaneChromeW, innerH), lw-widgets.PaneChromeW, innerH))
	right := widgets.Pane(st, v.focusRight, rw, h, v.signalTitle(), widgets.Block(v.signalLines(st, rw-widgets.PaneChromeW), rw-widgets.PaneChromeW, innerH))
	return strings.Join(head, "\n") + "\n" + lipgloss.JoinHorizontal(lipgloss.Top, left, right)
}

// tableLines is the latest responses, newest first, under a header. The
// probe column comes first: it gets the width of its longest name (up to
// 20 cells), and a name longer than its column is cut in the middle so
// that its sign stays; the candidate comes next, and the context takes
// what is left, or gives its column up when that is under 5 cells.
func (v *Tab) tableLines(st *styles.Styles, w, h int) []string {
	lr, top := v.live, v.tableTop()
	var shown []engine.Result
	for i := range h - 1 {
		seq := lr.nRecent - 1 - top - i
		if !lr.Kept(seq) {
			break
		}
		shown = append(shown, lr.At(seq))
	}
	probeHead := "probe"
	if lr.rubric != nil {
		probeHead = "criterion"
	}
	needP, needK := len(probeHead), len("cand")
	for _, r := range shown {
		needP = max(needP, lipgloss.Width(probeName(r.Probe)))
		needK = max(needK, lipgloss.Width(r.Candidate))
	}
	needP, needK = min(needP, 20), min(needK, 10)
	rest := w - scoreW - deltaW - 4 // context, candidate and probe; four separating spaces
	candW := min(needK, max(rest/5, 3))
	probeW, ctxW := needP, rest-candW-needP
	if ctxW < 5 { // the context gives its column to the probe
		ctxW = 0
		probeW = max(min(needP, rest+1-candW), 3)
		candW = max(rest+1-probeW, 3)
	}
	row := func(c, k, p, s, d string) string {
		cells := fmt.Sprintf("%-*s %-*s %*s %*s", candW, widgets.Clip(k, candW), probeW, widgets.ClipMiddle(p, probeW), scoreW, s, deltaW, d)
		if ctxW == 0 {
			return cells
		}
		return fmt.Sprintf("%-*s %s", ctxW, widgets.Clip(c, ctxW), cells)
	}
	lines := []string{st.Muted.Render(row("context", "cand", probeHead, "score", "Δ"))}
	for i, r := range shown {
		seq := lr.nRecent - 1 - top - i
		score, delta := resultCells(r, lr.rubric != nil)
		line := row(r.Context, r.Candidate, probeName(r.Probe), score, delta)
		switch {
		case seq == v.pick-1 && !v.focusRight:
			line = st.Selected.Render(line)
		case seq == v.pick-1:
			line = st.Cursor.Render(line)
		case r.ErrKind != "":
			line = st.Bad.Render(line)
		}
		lines = append(lines, line)
	}
	if v.live.nRecent == 0 {
		lines = append(lines, st.Muted.Render("waiting for the first answer…"))
	}
	return lines
}

// The latest responses' score and Δ columns: "score"; "-10", "+0.5", "…".
const scoreW, deltaW = 5, 4

// resultCells are r's score and Δ cells in the latest responses (rubric:
// a criterion's rating, which has no Δ).
func resultCells(r engine.Result, rubric bool) (score, delta string) {
	score = widgets.Compact(r.Score)
	if r.ErrKind != "" {
		score = widgets.Clip(r.ErrKind, scoreW-1)
	} else if r.Cached {
		score += "c"
	}
	delta = widgets.Signed(r.Delta, r.HasDelta)
	if r.HasScore && !r.HasDelta && r.Probe != "baseline" && !rubric {
		delta = "…" // its baseline has not arrived yet
	}
	if rubric {
		delta = "" // a criterion's rating has no baseline
		if r.ErrKind == "" && !r.HasScore {
			score = "miss" // a missing cell: the reply did not rate it validly
		}
	}
	return score, delta
}

// probeName is how the latest responses name a probe: a rubric probe by
// its criterion (the pane's title names the rubric).
func probeName(probe string) string {
	if _, c, ok := model.SplitRubricProbe(probe); ok {
		return c
	}
	return probe
}

func (v *Tab) signalTitle() string {
	if r := v.live.rubric; r != nil {
		return fmt.Sprintf("Ratings per criterion · %s (%s)", r.Name, r.Kind)
	}
	t := "RMS ratio vs neutral"
	if s := v.signal; s != nil {
		kind := "live"
		if s.Final {
			kind = "final"
		}
		t += fmt.Sprintf(" · %s, B=%d", kind, s.Resamples)
	}
	return t
}

// signalLines draws, per attribute, its Δ+ and Δ− sparklines (shared
// axis), the ratio bar with the marker at 1, the ratio and its interval
// ("too few" in place of bar, interval and verdict below
// signal.MinContexts contexts), then the pooled ratio, the neutral
// reference and how the wordings were pooled.
func (v *Tab) signalLines(st *styles.Styles, w int) []string {
	lr := v.live
	if lr.rubric != nil {
		return v.criteriaLines(st, w)
	}
	rows := map[string]ratio.Row{}
	var pooled ratio.Row
	axis := 2.0
	if v.signal != nil {
		var vals []float64
		for _, r := range v.signal.Rows {
			rows[r.Name] = r
			vals = append(vals, r.Ratio, r.Hi)
		}
		pooled = v.signal.Pooled
		axis = widgets.RatioAxis(append(vals, pooled.Ratio, pooled.Hi)...)
	}
	c := newRatioCols(lr.attrs, w, axis)
	header := fmt.Sprintf("%-*s %-*s %-*s %-*s", c.nameW, "attribute", c.sparkW, "Δ+", c.sparkW, "Δ−", c.barW, fmt.Sprintf("ratio 0…%g, │ = 1", axis))
	lines := []string{st.Muted.Render(widgets.Fit(header, w))}
	dr := lr.deltaRange()
	for _, a := range lr.attrs {
		r := rows[a]
		style := st.Muted
		if r.Pass {
			style = st.Good
		} else if r.HasSignal && !r.TooFew {
			style = st.Text
		}
		lines = append(lines, c.line(a, lr.plus[a].Spark(c.sparkW, dr), lr.minus[a].Spark(c.sparkW, dr), r, style))
	}
	// Context probes have ratios but no ± histograms.
	blank := strings.Repeat(" ", c.sparkW)
	for _, r := range v.signalRowsNotIn(lr.attrs) {
		lines = append(lines, c.line(r.Name, blank, blank, r, st.Text))
	}
	lines = append(lines, c.line("pooled", blank, blank, pooled, st.Label))
	return append(lines, v.signalFoot(st, w, dr)...)
}

// signalFoot is the ratio panel's last lines: how it was computed, or
// why there is none.
func (v *Tab) signalFoot(st *styles.Styles, w int, dr float64) []string {
	switch {
	case v.signalErr != nil:
		return []string{st.Bad.Render("signal: " + v.signalErr.Error())}
	case v.signal != nil:
		return []string{st.Muted.Render(fmt.Sprintf("neutral RMS %s over %d displacements · %d scores · Δ axis ±%g",
			widgets.Num(v.signal.NeutralRMS), v.signal.NeutralN, v.signal.Scores, dr)),
			st.Muted.Render(widgets.Fit(v.signal.Note(), w))}
	}
	return []string{st.Muted.Render("ratios appear once baselines and neutrals are scored")}
}

// ratioCols are the ratio panel's columns for a width: the name, the
// two sparklines, the bar on axis and, when there is room, the interval.
type ratioCols struct {
	nameW, sparkW, barW int
	showCI              bool
	axis                float64
}

func newRatioCols(attrs []string, w int, axis float64) ratioCols {
	c := ratioCols{nameW: 10, showCI: true, axis: axis}
	for _, a := range attrs {
		c.nameW = max(c.nameW, min(len(a), 14))
	}
	c.sparkW = max(min((w-c.nameW)/8, 13), 4)
	const valW, ciW = 6, 12 // the value keeps a space from a full bar, also past 10
	c.barW = w - c.nameW - 2*c.sparkW - valW - ciW - 5
	if c.barW < 6 {
		c.showCI = false
		c.barW += ciW + 1
	}
	return c
}

// line is one row of the panel: name, sparklines, the bar (or "too
// few"), the ratio, ✓ for a pass and the interval.
func (c ratioCols) line(name, plus, minus string, r ratio.Row, style lipgloss.Style) string {
	bar, val, ci := strings.Repeat(" ", c.barW), "     —", ""
	switch {
	case r.HasSignal && r.TooFew: // the ratio, but neither bar, interval nor verdict
		bar = fmt.Sprintf("%-*s", c.barW, r.TooFewText(c.barW))
		val = fmt.Sprintf("%6.2f", r.Ratio)
	case r.HasSignal:
		bar = widgets.RatioBar(r.Ratio, r.Lo, r.Hi, c.axis, c.barW)
		val = fmt.Sprintf("%6.2f", r.Ratio)
		ci = fmt.Sprintf(" [%s,%s]", widgets.Num(r.Lo), widgets.Num(r.Hi))
	default:
		bar = widgets.RatioBar(math.NaN(), math.NaN(), math.NaN(), c.axis, c.barW)
	}
	mark := " "
	if r.Pass {
		mark = "✓"
	}
	out := fmt.Sprintf("%-*s %s %s %s%s%s", c.nameW, widgets.Clip(name, c.nameW), plus, minus, style.Render(bar), val, mark)
	if c.showCI {
		out += ci
	}
	return out
}

func (v *Tab) signalRowsNotIn(attrs []string) []ratio.Row {
	if v.signal == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, a := range attrs {
		seen[a] = true
	}
	var out []ratio.Row
	for _, r := range v.signal.Rows {
		if !seen[r.Name] {
			out = append(out, r)
		}
	}
	return out
}

// criteriaLines is a rubric study's panel in place of the ratio panel:
// per criterion, the ratings stored with a score (rated), the missing
// cells (answers without a valid rating), the failed requests and the
// mean rating so far, as prism run --rubric counts them after a run.
func (v *Tab) criteriaLines(st *styles.Styles, w int) []string {
	lr := v.live
	nameW := len("criterion")
	for _, c := range lr.rubric.Criteria {
		nameW = max(nameW, min(lipgloss.Width(c.Name), 20))
	}
	row := func(name, scored, missing, failed, mean string) string {
		return widgets.Fit(fmt.Sprintf("%-*s %5s %5s %5s %5s", nameW, widgets.Clip(name, nameW), scored, missing, failed, mean), w)
	}
	lines := []string{st.Muted.Render(row("criterion", "rated", "miss", "fail", "mean"))}
	for _, c := range lr.rubric.Criteria {
		t := lr.crits[c.Name]
		mean := "—"
		if t.scored > 0 {
			mean = fmt.Sprintf("%.2f", t.sum/float64(t.scored))
		}
		line := row(c.Name, fmt.Sprint(t.scored), fmt.Sprint(t.missing), fmt.Sprint(t.failed), mean)
		if t.failed > 0 {
			line = st.Bad.Render(line)
		}
		lines = append(lines, line)
	}
	lines = append(lines, "")
	lines = append(lines, widgets.WrapStyled(st.Muted, fmt.Sprintf("stored as probes rubric:%s/CRITERION under the judge's name: the Fit tab (f) scores them as its rubric baseline %s beside the bank's methods (Table 2).",
		lr.rubric.Name, study.BaselineName(lr.rubric)), w)...)
	return lines
}
