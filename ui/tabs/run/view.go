package run

import (
	"fmt"

	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

func (v *Tab) View() string {
	st := v.svc.Styles()
	if v.formShown() {
		return v.formView(st)
	}
	return v.dashboard(st)
}

func (v *Tab) formView(st *styles.Styles) string {
	lw := v.formWidth()
	rw := v.width - lw
	innerH := v.height - widgets.PaneChromeH - 1
	lines := v.form.Lines(st, lw-widgets.PaneChromeW, !v.focusRight)
	lines = append(lines, "", st.Muted.Render("enter edit · s start"))
	switch {
	case v.live != nil && v.live.phase == PhaseDone:
		lines = append(lines, st.Muted.Render("esc back to the last run"))
	case v.live != nil && v.live.phase == PhaseStored:
		lines = append(lines, st.Muted.Render("esc back to the stored answers"))
	}
	left := widgets.Pane(st, !v.focusRight, lw, v.height, "Judge", widgets.Block(lines, lw-widgets.PaneChromeW, innerH))
	right := widgets.Pane(st, v.focusRight, rw, v.height, "Estimate", widgets.Block(v.estimateLines(st, rw-widgets.PaneChromeW), rw-widgets.PaneChromeW, innerH))
	return lipgloss.JoinHorizontal(lipgloss.Top, left, right)
}

func (v *Tab) estimateLines(st *styles.Styles, w int) []string {
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
		fmt.Sprintf("bank      %s %s · %d conditions", sp.Bank.Name, widgets.ShortHash(p.BankHash), len(sp.Bank.Conditions())),
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
		fmt.Sprintf("rubric    %s %s · %s · %d criteria", r.Name, widgets.ShortHash(p.BankHash), r.Kind, len(r.Criteria)),
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
