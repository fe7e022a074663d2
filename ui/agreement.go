package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/agree"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// Agreement without probes (docs/agree.md, docs/tui-fit.md): how well
// judges' baseline scores agree with the labels, as prism agree measures
// them (agree.ReadStored and agree.Measure, prism agree's defaults), for
// a judge whose study has no probe answers (the Fit tab, in place of the
// fit it cannot make) and for every judge on the Compare tab.

// agreement is an agreement analysis of one or more judges.
type agreement struct {
	res      *agree.Result
	warnings []string // agree.Build's: candidates or contexts left out
}

// agreeOptions are prism agree's defaults (2,000 context resamples, seed
// 42, no scale shared with the labels) with the headline of the tab's
// metric: within-context Spearman, or pairwise accuracy.
func agreeOptions(metric string) agree.Options {
	opts := agree.DefaultOptions()
	opts.Metric = agree.KeySpearman
	if metric == model.MetricPairwise {
		opts.Metric = agree.KeyPairwise
	}
	return opts
}

// measureAgreement reads each judge's study on dataset under bankHash
// (its planned runs) and measures them together on the candidates every
// judge scored, on the same resamples: prism agree --judge A,B,…
// --bank BANK with the headline metric.
func measureAgreement(ctx context.Context, st *store.Store, dataset, bankHash string, judges []string, metric string) (*agreement, error) {
	scores := make([]map[agree.Key]float64, len(judges))
	var labels []model.Label
	for i, j := range judges {
		s, err := agree.ReadStored(ctx, st, dataset, j, bankHash, study.Runs{})
		if err != nil {
			return nil, err
		}
		scores[i], labels = s.Scores, s.Labels
	}
	res, _, warnings, err := agree.Measure(labels, judges, scores, agreeOptions(metric))
	if err != nil {
		return nil, err
	}
	return &agreement{res: res, warnings: warnings}, nil
}

// agreeMetrics are the metrics in prism agree's column order, with the
// labels the Fit tab gives them.
var agreeMetrics = []struct{ key, label string }{
	{agree.KeySpearman, "Spearman"},
	{agree.KeyKendall, "Kendall τ-b"},
	{agree.KeyPairwise, "pairwise acc."},
	{agree.KeyPearsonGlobal, "Pearson"},
	{agree.KeySpearmanGlobal, "Spearman"},
	{agree.KeyKendallGlobal, "Kendall τ-b"},
	{agree.KeyBias, "bias"},
	{agree.KeyMAE, "MAE"},
	{agree.KeyKappa, "κ quadratic"},
	{agree.KeyAlphaInterval, "α interval"},
	{agree.KeyAlphaOrdinal, "α ordinal"},
}

// within reports whether metric key is a mean over contexts.
func within(key string) bool {
	return key == agree.KeySpearman || key == agree.KeyKendall || key == agree.KeyPairwise
}

// agreeTableLines are one judge's metrics as the Fit tab shows them: a
// row per metric with its value, 95% interval and N, within-context
// metrics first, the headline marked.
func agreeTableLines(st *styles.Styles, r *agree.Result, judge string, w int) []string {
	est := r.Judges[judge]
	lines := []string{st.Label.Render(widgets.Fit(fmt.Sprintf("%-22s %7s %-18s %s", "metric", "mean", "95% CI", "N"), w))}
	group := ""
	for _, m := range agreeMetrics {
		e, ok := est[m.key]
		if !ok {
			continue
		}
		g, n := "over all candidates", fmt.Sprintf("%d candidates", e.N)
		if within(m.key) {
			g, n = "within context (mean over contexts)", fmt.Sprintf("%d contexts", e.N)
		}
		if g != group {
			group = g
			lines = append(lines, st.Title.Render(widgets.Fit(g, w)))
		}
		label := "  " + m.label
		if m.key == r.Metric {
			label += " *"
		}
		s := st.Text
		if m.key == r.Metric {
			s = st.Label
		}
		lines = append(lines, s.Render(widgets.Fit(fmt.Sprintf("%-22s %7s %-18s %s", label, mean4(e.Mean), ciText(e.CI), n), w)))
	}
	return lines
}

// agreeNoteLines say how an agreement was computed.
func agreeNoteLines(st *styles.Styles, r *agree.Result, w int) []string {
	constant := "a context where the judge or the labels are constant counts 0 (as the fit counts it)"
	if r.SkipConstant {
		constant = "contexts where the judge or the labels are constant are left out"
	}
	return widgets.WrapStyled(st.Muted, fmt.Sprintf("%d contexts, %d candidates with a label and a score; %d context-bootstrap resamples, seed %d; %s.",
		r.Contexts, r.Candidates, r.Bootstrap, r.Seed, constant), w)
}

// fitAgreeLines are the Fit tab's agreement for a judge without probe
// answers: why there is no fit, the table, and how to get a fit.
func (v *fitTab) fitAgreeLines(st *styles.Styles, w int) []string {
	ag := v.agree
	lines := widgets.WrapStyled(st.Text, fmt.Sprintf("judge %s has baseline answers but no probe answers, so there is nothing to fit. Its agreement with the labels, as prism agree measures it (* the headline, m switches it):",
		v.key.Judge), w)
	if v.stale != "" {
		lines = append(lines, widgets.WrapStyled(st.Warn, v.stale, w)...)
	}
	for _, wn := range v.warnings {
		lines = append(lines, widgets.WrapStyled(st.Warn, wn, w)...)
	}
	lines = append(lines, "")
	lines = append(lines, agreeTableLines(st, ag.res, v.key.Judge, w)...)
	lines = append(lines, "")
	lines = append(lines, agreeNoteLines(st, ag.res, w)...)
	lines = append(lines, widgets.WrapStyled(st.Muted, "To correct the judge, probe it: run the bank under this judge's name (Run tab, s), then f fits PRISM.", w)...)
	return lines
}

// agreeStale says why the Fit tab's agreement no longer describes the
// study, or "" when it does.
func (a *App) agreeStale() string {
	v := &a.fit
	k, ok := a.currentKey()
	switch {
	case !ok || k.Dataset != v.key.Dataset:
		return "the dataset has changed since this agreement: f measures it again"
	case k.Judge != v.key.Judge:
		return fmt.Sprintf("this agreement is of judge %s; the Run tab now names %s: f fits or measures it", v.key.Judge, k.Judge)
	case v.agree.res.Metric != agreeOptions(v.metric()).Metric:
		return "the metric has changed since this agreement: f measures it again"
	case a.versions.Of(k) != v.answers:
		return "new answers were stored since this agreement: f fits or measures it again"
	}
	return ""
}

// agreeLines are the Compare tab's agreement section: every judge, with
// probes or without, on the headline metric with its 95% interval and,
// under the best judge, its paired difference from the best on the same
// resamples (prism agree's pairs). Judges without probe answers, which
// the method tables below cannot show, are named.
func (v *compareTab) agreeLines(st *styles.Styles, w int) []string {
	if v.aerr != nil {
		return widgets.WrapStyled(st.Warn, "agreement with the labels: "+v.aerr.Error(), w)
	}
	if v.agree == nil {
		return nil
	}
	r := v.agree.res
	names := map[string]string{}
	var bare []string
	for i, f := range v.fits {
		names[f.judge] = fmt.Sprintf("%c %s", judgeMark(i), f.judge)
		if errors.Is(f.err, calib.ErrNoProbes) {
			bare = append(bare, names[f.judge])
		}
	}
	const cellsW = 1 + 8 + 1 + 18 + 1 + 8 + 1 + 18
	nw := 10
	for _, n := range names {
		nw = max(nw, len([]rune(n)))
	}
	nw = max(min(nw, w-cellsW), 6)
	best := r.Order[0]
	head := fmt.Sprintf("%-*s %8s %s", nw, "judge", r.Metric, "95% CI")
	note := fmt.Sprintf("%d contexts, %d candidates; %d context resamples.", r.Contexts, r.Candidates, r.Bootstrap)
	if len(r.Order) > 1 {
		head = fmt.Sprintf("%-*s %8s %-18s %8s %s", nw, "judge", r.Metric, "95% CI", "Δ vs "+names[best][:1], "95% CI")
		note = fmt.Sprintf("Δ: the judge − %s on the same %d context resamples; %d contexts, %d candidates every judge scored.",
			names[best], r.Bootstrap, r.Contexts, r.Candidates)
	}
	lines := []string{st.Title.Render(widgets.Fit("agreement with the labels (prism agree; no probes needed)", w)), st.Label.Render(widgets.Fit(head, w))}
	for _, j := range r.Order {
		e, ok := r.Judges[j][r.Metric]
		row := fmt.Sprintf("%-*s %8s", nw, widgets.ClipMiddle(names[j], nw), "—")
		if ok {
			row = fmt.Sprintf("%-*s %8s %-18s", nw, widgets.ClipMiddle(names[j], nw), mean4(e.Mean), ciText(e.CI))
		}
		for _, p := range r.Pairs {
			if p.A == best && p.B == j {
				row += " " + pairCells(p)
			}
		}
		lines = append(lines, st.Text.Render(widgets.Fit(strings.TrimRight(row, " "), w)))
	}
	if len(bare) > 0 {
		note += " No probe answers (agreement only): " + strings.Join(bare, ", ") + "."
	}
	lines = append(lines, widgets.WrapStyled(st.Muted, note, w)...)
	for _, wn := range v.agree.warnings {
		lines = append(lines, widgets.WrapStyled(st.Warn, wn, w)...)
	}
	return append(lines, "")
}

// pairCells are the difference B − A of a pair (the judge B below the
// best judge A) and its interval, signed ("+0.0000", never "-0.0000").
func pairCells(p agree.Pair) string {
	return fmt.Sprintf("%8s [%s, %s]", widgets.Fixed4(-p.Mean), widgets.Fixed4(-p.CI[1]), widgets.Fixed4(-p.CI[0]))
}

// FitAgreement is the agreement the Fit tab shows for a judge without
// probes (nil otherwise): what a test compares with prism agree's.
func (a *App) FitAgreement() *agree.Result {
	if a.fit.agree == nil {
		return nil
	}
	return a.fit.agree.res
}

// CompareAgreement is the Compare tab's agreement of every judge (nil
// before a comparison): what a test compares with prism agree's.
func (a *App) CompareAgreement() *agree.Result {
	if a.cmp.agree == nil {
		return nil
	}
	return a.cmp.agree.res
}
