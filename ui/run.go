package ui

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// runTab is the Run tab: before a run, the judge form and the
// estimate; once started, the progress line, the latest responses, and per
// attribute the Δ distributions and the RMS ratio against the neutral
// clauses. The run itself (the engine's handle and its plan) is the
// App's, shared with the Bank tab's screens; runctl.go starts and
// follows it.
type runTab struct {
	form     runForm
	plan     *engine.Plan
	planErr  error
	planning bool

	live      *liveRun // nil before the first run
	signal    *signalView
	signalErr error

	// The ratio panel's schedule (runctl.go's maybeSignal).
	signalBusy  bool
	signalAt    time.Time     // when the last recomputation was asked for
	signalCost  time.Duration // how long the last one took
	signalFinal bool          // the run has ended and the final panel is owed

	// pick is 1 + the sequence number (liveRun.At) of the latest-responses
	// row under the cursor, so that the cursor stays on its result while
	// newer ones push the table down; 0 for none.
	pick int

	showForm      bool // the form, also after a run (e edits)
	focusRight    bool
	width, height int
}

func (v *runTab) SetSize(w, h int) {
	v.width, v.height = w, h
	v.form.SetWidth(v.formWidth() - widgets.PaneChromeW)
}

// formWidth is the width of the form's pane.
func (v *runTab) formWidth() int { return max(v.width*2/5, 36) }

func (v *runTab) Focus(right bool) { v.focusRight = right }

// Move moves the form cursor when the form is shown, else the cursor of
// the latest responses (up is newer). The first move puts the cursor on
// the newest row.
func (v *runTab) Move(delta int) {
	switch {
	case v.formShown():
		if !v.form.editing {
			v.form.Move(delta)
		}
	case !v.focusRight && v.live.nRecent > 0:
		newest := v.live.nRecent - 1
		if !v.live.Kept(v.pick - 1) {
			v.pick = newest + 1
			return
		}
		v.pick = min(max(v.pick-1-delta, max(v.live.nRecent-maxRecent, 0)), newest) + 1
	}
}

// Selected is the result under the latest-responses cursor.
func (v *runTab) Selected() (engine.Result, bool) {
	if v.formShown() || !v.live.Kept(v.pick-1) {
		return engine.Result{}, false
	}
	return v.live.At(v.pick - 1), true
}

// ClickRow puts the cursor on the latest-responses row at line y of the
// dashboard (0 is the progress line), if there is one.
func (v *runTab) ClickRow(y int) {
	lr := v.live
	// two progress lines, the pane's top border and title, the header
	i := y - 2 - 1 - 1 - 1
	if i < 0 || i >= v.tableRows() {
		return
	}
	top := v.tableTop()
	if seq := lr.nRecent - 1 - top - i; lr.Kept(seq) {
		v.pick = seq + 1
	}
}

// tableRows is how many results the latest-responses table shows.
func (v *runTab) tableRows() int {
	return max(v.height-2-widgets.PaneChromeH-1-1, 0) // progress lines, pane, header
}

// tableTop is how many of the newest results are scrolled past so that
// the cursor's row is on screen.
func (v *runTab) tableTop() int {
	if !v.live.Kept(v.pick - 1) {
		return 0
	}
	return max(v.live.nRecent-v.pick-v.tableRows()+1, 0)
}

// formShown reports whether the form (not the dashboard) is on screen.
func (v *runTab) formShown() bool { return v.showForm || v.live == nil }

func (v *runTab) active() bool {
	return v.live != nil && v.live.phase >= phaseStarting && v.live.phase < phaseDone
}

func (v *runTab) View(a *App) string {
	st := a.styles
	if v.formShown() {
		return v.formView(st)
	}
	return v.dashboard(st)
}

func (v *runTab) formView(st *styles.Styles) string {
	lw := v.formWidth()
	rw := v.width - lw
	innerH := v.height - widgets.PaneChromeH - 1
	lines := v.form.Lines(st, lw-widgets.PaneChromeW, !v.focusRight)
	lines = append(lines, "", st.Muted.Render("enter edit · s start"))
	switch {
	case v.live != nil && v.live.phase == phaseDone:
		lines = append(lines, st.Muted.Render("esc back to the last run"))
	case v.live != nil && v.live.phase == phaseStored:
		lines = append(lines, st.Muted.Render("esc back to the stored answers"))
	}
	left := widgets.Pane(st, !v.focusRight, lw, v.height, "Judge", widgets.Block(lines, lw-widgets.PaneChromeW, innerH))
	right := widgets.Pane(st, v.focusRight, rw, v.height, "Estimate", widgets.Block(v.estimateLines(st, rw-widgets.PaneChromeW), rw-widgets.PaneChromeW, innerH))
	return lipgloss.JoinHorizontal(lipgloss.Top, left, right)
}

func (v *runTab) estimateLines(st *styles.Styles, w int) []string {
	switch {
	case v.planErr != nil:
		return append([]string{st.Bad.Render("cannot plan this run:")}, widgets.WrapStyled(st.Bad, v.planErr.Error(), w)...)
	case v.plan == nil && v.planning:
		return []string{st.Muted.Render("estimating…")}
	case v.plan == nil:
		return []string{st.Muted.Render("no estimate yet")}
	}
	if v.plan.IsRubric() {
		return rubricEstimateLines(st, v.plan, w)
	}
	p, e := v.plan, v.plan.Estimate
	sp := p.Spec
	scale := ""
	if t, ok := sp.Bank.Tasks[taskOf(sp)]; ok {
		scale = fmt.Sprintf(" · scale %d–%d", t.Scale.Min, t.Scale.Max)
	}
	lines := []string{
		fmt.Sprintf("dataset   %s · %d candidates", sp.Dataset.Name, sp.Dataset.NumCandidates()),
		fmt.Sprintf("bank      %s %s · %d conditions", sp.Bank.Name, shortHash(p.BankHash), len(sp.Bank.Conditions())),
		fmt.Sprintf("judge     %s · %s × %d run(s)%s", sp.JudgeName, sp.Config.Mode, sp.Repeats, scale),
		"",
		fmt.Sprintf("requests  %d · %d answered · %d from cache", e.Requests, e.Answered, e.CacheHits),
		st.Title.Render(fmt.Sprintf("to send   %d", e.Send)),
		fmt.Sprintf("tokens    ≈ %s in · %s out", widgets.HumanCount(e.InputTokens), widgets.HumanCount(e.OutputTokens)),
	}
	return append(lines, estimateTail(st, p)...)
}

// estimateTail is the end of an estimate: the cost, the time and what s
// does.
func estimateTail(st *styles.Styles, p *engine.Plan) []string {
	e, sp := p.Estimate, p.Spec
	var lines []string
	if e.Priced {
		lines = append(lines, fmt.Sprintf("cost      ≈ $%.2f (%s prices)", e.Cost, e.PriceModel))
	} else {
		lines = append(lines, st.Warn.Render(fmt.Sprintf("cost      unknown: no price for %q", e.PriceModel)))
	}
	lines = append(lines, fmt.Sprintf("time      ≈ %s at concurrency %d", widgets.ShortDuration(e.Time), max(sp.Limits.Concurrency, 1)))
	lines = append(lines, "")
	if e.Send+e.CacheHits == 0 {
		lines = append(lines, st.Good.Render("everything is answered; s shows the results"))
	} else {
		lines = append(lines, st.Muted.Render("s starts the run; it resumes where it stops"))
	}
	return lines
}

// rubricEstimateLines is the estimate of a rubric study, as prism run
// --rubric --dry-run prints it: the rubric, its budget per candidate
// (calls and tokens, which differ between methods: docs/rubrics.md),
// the ratings to acquire and the calls that sends.
func rubricEstimateLines(st *styles.Styles, p *engine.Plan, w int) []string {
	e, sp := p.Estimate, p.Spec
	r := sp.Rubric
	b := p.CandidateBudget()
	calls, how, in, out := b.Calls, b.How, b.InTokens, b.OutTokens
	lines := []string{
		fmt.Sprintf("dataset   %s · %d candidates", sp.Dataset.Name, sp.Dataset.NumCandidates()),
		fmt.Sprintf("rubric    %s %s · %s · %d criteria", r.Name, shortHash(p.BankHash), r.Kind, len(r.Criteria)),
		fmt.Sprintf("judge     %s · %s × %d run(s)", sp.JudgeName, sp.Config.Mode, sp.Repeats),
		"",
		st.Title.Render(fmt.Sprintf("per cand  %d call(s)", calls)),
	}
	const indent = "          " // under the values
	for _, l := range widgets.Wrap(how, max(w-len(indent), 8)) {
		lines = append(lines, indent+st.Muted.Render(l))
	}
	lines = append(lines, fmt.Sprintf("%s≈ %s in · %s out tokens", indent, widgets.HumanCount(in), widgets.HumanCount(out)), "",
		fmt.Sprintf("ratings   %d · %d answered · %d from cache", e.Requests, e.Answered, e.CacheHits),
		st.Title.Render(fmt.Sprintf("to send   %d request(s) · %d call(s)", e.Send, e.Calls)),
		fmt.Sprintf("tokens    ≈ %s in · %s out", widgets.HumanCount(e.InputTokens), widgets.HumanCount(e.OutputTokens)),
	)
	return append(lines, estimateTail(st, p)...)
}

func taskOf(sp engine.Spec) string {
	if sp.Task != "" {
		return sp.Task
	}
	return sp.Dataset.Task
}

// statusWord names the run's state.
func (v *runTab) statusWord(st *styles.Styles) string {
	lr := v.live
	switch lr.phase {
	case phaseStarting:
		return st.Warn.Render("starting")
	case phaseCanceling:
		return st.Warn.Render("canceling")
	case phaseStored:
		return st.Good.Render("stored")
	case phaseDone:
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
func (v *runTab) progressBar(st *styles.Styles, word string, done, total int, counts string) string {
	return widgets.ProgressBar(st, word, done, total, counts, v.width)
}

// storedLines are the progress lines of a stored study (phaseStored):
// what the workspace holds, not a run.
func (v *runTab) storedLines(st *styles.Styles) []string {
	sp := v.live.stored
	line1 := v.progressBar(st, v.statusWord(st), sp.Answered, sp.Requests, fmt.Sprintf(" %d/%d answered", sp.Answered, sp.Requests))
	line2 := fmt.Sprintf("nothing left to send · failed attempts %d · e edits the judge", sp.Failures)
	return []string{widgets.Fit(line1, v.width), widgets.Fit(st.Muted.Render(line2), v.width)}
}

func (v *runTab) progressLines(st *styles.Styles) []string {
	if v.live.phase == phaseStored {
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
	case v.live.phase != phaseRunning && v.live.phase != phaseStarting:
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
	if why := p.Why(p.At); why != "" && v.live.phase == phaseRunning {
		line2 = st.Warn.Render(why) // why the run is not moving comes first
	}
	if v.live.err != nil {
		line2 = st.Bad.Render(v.live.err.Error())
	}
	return []string{widgets.Fit(line1, v.width), widgets.Fit(line2, v.width)}
}

func (v *runTab) dashboard(st *styles.Styles) string {
	head := v.progressLines(st)
	h := v.height - len(head)
	lw := max(v.width*2/5, 32)
	rw := v.width - lw
	innerH := h - widgets.PaneChromeH - 1
	var left string
	if v.live.phase == phaseStored {
		// No run in this session: no latest responses to list.
		lines := widgets.WrapStyled(st.Muted, "no run in this session: these answers were stored by earlier runs. e edits the judge; a judge or bank with answers left to send starts a run with s.", lw-widgets.PaneChromeW)
		left = widgets.Pane(st, !v.focusRight, lw, h, "Stored answers", widgets.Block(lines, lw-widgets.PaneChromeW, innerH))
	} else {
		left = widgets.Pane(st, !v.focusRight, lw, h, "Latest responses", widgets.Block(v.tableLines(st, lw-widgets.PaneChromeW, innerH), lw-widgets.PaneChromeW, innerH))
	}
	right := widgets.Pane(st, v.focusRight, rw, h, v.signalTitle(), widgets.Block(v.signalLines(st, rw-widgets.PaneChromeW), rw-widgets.PaneChromeW, innerH))
	return strings.Join(head, "\n") + "\n" + lipgloss.JoinHorizontal(lipgloss.Top, left, right)
}

// tableLines is the latest responses, newest first, under a header. The
// probe column comes first: it gets the width of its longest name (up to
// 20 cells), and a name longer than its column is cut in the middle so
// that its sign stays; the candidate comes next, and the context takes
// what is left, or gives its column up when that is under 5 cells.
func (v *runTab) tableLines(st *styles.Styles, w, h int) []string {
	const scoreW, deltaW = 5, 4 // "score"; "-10", "+0.5", "…"
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
		score := widgets.Compact(r.Score)
		if r.ErrKind != "" {
			score = widgets.Clip(r.ErrKind, scoreW-1)
		} else if r.Cached {
			score += "c"
		}
		delta := widgets.Signed(r.Delta, r.HasDelta)
		if r.HasScore && !r.HasDelta && r.Probe != "baseline" && lr.rubric == nil {
			delta = "…" // its baseline has not arrived yet
		}
		if lr.rubric != nil {
			delta = "" // a criterion's rating has no baseline
			if r.ErrKind == "" && !r.HasScore {
				score = "miss" // a missing cell: the reply did not rate it validly
			}
		}
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

// probeName is how the latest responses name a probe: a rubric probe by
// its criterion (the pane's title names the rubric).
func probeName(probe string) string {
	if _, c, ok := model.SplitRubricProbe(probe); ok {
		return c
	}
	return probe
}

func (v *runTab) signalTitle() string {
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
func (v *runTab) signalLines(st *styles.Styles, w int) []string {
	lr := v.live
	if lr.rubric != nil {
		return v.criteriaLines(st, w)
	}
	nameW := 10
	for _, a := range lr.attrs {
		nameW = max(nameW, min(len(a), 14))
	}
	sparkW := max(min((w-nameW)/8, 13), 4)
	const valW, ciW = 6, 12 // the value keeps a space from a full bar, also past 10
	barW := w - nameW - 2*sparkW - valW - ciW - 5
	showCI := true
	if barW < 6 {
		showCI = false
		barW += ciW + 1
	}
	rows := map[string]ratioRow{}
	var pooled ratioRow
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
	header := fmt.Sprintf("%-*s %-*s %-*s %-*s", nameW, "attribute", sparkW, "Δ+", sparkW, "Δ−", barW, fmt.Sprintf("ratio 0…%g, │ = 1", axis))
	lines := []string{st.Muted.Render(widgets.Fit(header, w))}
	dr := lr.deltaRange()
	line := func(name, plus, minus string, r ratioRow, style lipgloss.Style) string {
		bar, val, ci := strings.Repeat(" ", barW), "     —", ""
		switch {
		case r.HasSignal && r.TooFew: // the ratio, but neither bar, interval nor verdict
			bar = fmt.Sprintf("%-*s", barW, r.TooFewText(barW))
			val = fmt.Sprintf("%6.2f", r.Ratio)
		case r.HasSignal:
			bar = widgets.RatioBar(r.Ratio, r.Lo, r.Hi, axis, barW)
			val = fmt.Sprintf("%6.2f", r.Ratio)
			ci = fmt.Sprintf(" [%s,%s]", widgets.Num(r.Lo), widgets.Num(r.Hi))
		default:
			bar = widgets.RatioBar(math.NaN(), math.NaN(), math.NaN(), axis, barW)
		}
		mark := " "
		if r.Pass {
			mark = "✓"
		}
		out := fmt.Sprintf("%-*s %s %s %s%s%s", nameW, widgets.Clip(name, nameW), plus, minus, style.Render(bar), val, mark)
		if showCI {
			out += ci
		}
		return out
	}
	for _, a := range lr.attrs {
		r := rows[a]
		style := st.Muted
		if r.Pass {
			style = st.Good
		} else if r.HasSignal && !r.TooFew {
			style = st.Text
		}
		lines = append(lines, line(a, lr.plus[a].Spark(sparkW, dr), lr.minus[a].Spark(sparkW, dr), r, style))
	}
	// Context probes have ratios but no ± histograms.
	for _, r := range v.signalRowsNotIn(lr.attrs) {
		lines = append(lines, line(r.Name, strings.Repeat(" ", sparkW), strings.Repeat(" ", sparkW), r, st.Text))
	}
	lines = append(lines, line("pooled", strings.Repeat(" ", sparkW), strings.Repeat(" ", sparkW), pooled, st.Label))
	switch {
	case v.signalErr != nil:
		lines = append(lines, st.Bad.Render("signal: "+v.signalErr.Error()))
	case v.signal != nil:
		lines = append(lines, st.Muted.Render(fmt.Sprintf("neutral RMS %s over %d displacements · %d scores · Δ axis ±%g",
			widgets.Num(v.signal.NeutralRMS), v.signal.NeutralN, v.signal.Scores, dr)),
			st.Muted.Render(widgets.Fit(v.signal.Note(), w)))
	default:
		lines = append(lines, st.Muted.Render("ratios appear once baselines and neutrals are scored"))
	}
	return lines
}

func (v *runTab) signalRowsNotIn(attrs []string) []ratioRow {
	if v.signal == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, a := range attrs {
		seen[a] = true
	}
	var out []ratioRow
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
func (v *runTab) criteriaLines(st *styles.Styles, w int) []string {
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
