package ui

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"charm.land/bubbles/v2/key"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// The Compare tab (paper §3.2): every judge of the workspace with
// answers on the dataset, fitted the same way, side by side: their method
// tables, and per attribute their profile means on one axis, whether
// the signs of the judges agree or differ, and each judge's numbers.

// judgeFit is one judge's fit on the Compare tab.
type judgeFit struct {
	judge string
	rep   *calib.Report
	err   error
}

// compareMsg carries the fits of every judge with answers, and their
// agreement with the labels (or why it could not be measured).
type compareMsg struct {
	gen      int
	fits     []judgeFit
	agree    *agreement
	agreeErr error
	err      error
}

// compareCmd fits every judge of st with answers on dataset: under
// bankHash, or, for an imported judge (whose answers have no bank), all
// its answers. A judge without probe answers cannot be fitted
// (calib.ErrNoProbes) but is measured: every judge's agreement with the
// labels is computed together, on the same resamples (measureAgreement).
func compareCmd(ctx context.Context, st *store.Store, dataset, bankHash string, opts calib.Options, gen int) tea.Cmd {
	return func() tea.Msg {
		judges, err := st.Judges(ctx)
		if err != nil {
			return compareMsg{gen: gen, err: err}
		}
		var fits []judgeFit
		for _, j := range judges {
			// An imported judge's answers, which have no bank, are its
			// study under any bankHash (study.Pick).
			_, _, err := study.Pick(ctx, st, dataset, j.Name, bankHash)
			if errors.Is(err, store.ErrNotFound) {
				continue // no answers of this judge here
			}
			if err != nil {
				return compareMsg{gen: gen, err: err}
			}
			var rep *calib.Report
			res, _, err := fitStudy(ctx, st, studyKey{Dataset: dataset, Judge: j.Name, BankHash: bankHash}, opts)
			if res != nil {
				rep = res.Report
			}
			fits = append(fits, judgeFit{judge: j.Name, rep: rep, err: err})
		}
		msg := compareMsg{gen: gen, fits: fits}
		if len(fits) > 0 {
			names := make([]string, len(fits))
			for i, f := range fits {
				names[i] = f.judge
			}
			msg.agree, msg.agreeErr = measureAgreement(ctx, st, dataset, bankHash, names, opts.Metric)
		}
		return msg
	}
}

// compareTab draws the Compare tab.
type compareTab struct {
	fits   []judgeFit
	agree  *agreement // every judge's agreement with the labels, or nil
	aerr   error      // why agree is nil after a comparison
	busy   bool
	err    error
	gen    int
	scroll int

	key     studyKey // the dataset and bank version of fits
	metric  string
	taylor  bool
	answers int    // App.versions.Total when the fits started
	rubrics int    // App.versions.Total of the rubric keys when the fits started
	stale   string // why fits no longer describe the study, or ""

	width, height int
}

func (v *compareTab) SetSize(w, h int) { v.width, v.height = w, h }

func (v *compareTab) Move(delta int) { v.scroll = max(v.scroll+delta, 0) }

// overlapMark stands for two or more judges in one cell of an axis.
const overlapMark = '*'

// judgeMark is the letter of the i-th judge on the shared axes.
func judgeMark(i int) rune { return rune('A' + i%26) }

// direction says whether the judges' means agree in sign: "agree" when
// all are on the same side of 0, "differ" when some are on each side,
// "" when fewer than two are non-zero. (Not "shared": e_k is the shared
// correction, whatever the signs of the judges.)
func direction(means []float64) string {
	pos, neg := 0, 0
	for _, m := range means {
		switch {
		case m > 0:
			pos++
		case m < 0:
			neg++
		}
	}
	switch {
	case pos > 0 && neg > 0:
		return "differ"
	case pos+neg >= 2:
		return "agree"
	}
	return ""
}

func (v *compareTab) View(a *App) string {
	st := a.styles
	v.stale = a.compareStale()
	w := v.width - widgets.PaneChromeW
	innerH := v.height - widgets.PaneChromeH - 1
	lines := v.lines(st, w)
	v.scroll = min(v.scroll, max(len(lines)-innerH, 0))
	title := "Compare judges"
	if len(v.fits) > 0 {
		title += " · " + v.metric
	}
	return widgets.Pane(st, true, v.width, v.height, title, widgets.Block(lines[v.scroll:], w, innerH))
}

func (v *compareTab) lines(st *styles.Styles, w int) []string {
	var lines []string
	if v.busy {
		lines = append(lines, st.Title.Render("fitting every judge…"))
	}
	if v.err != nil {
		lines = append(lines, widgets.WrapStyled(st.Bad, v.err.Error(), w)...)
	}
	if v.stale != "" && len(v.fits) > 0 {
		lines = append(lines, widgets.WrapStyled(st.Warn, v.stale, w)...)
	}
	lines = append(lines, v.agreeLines(st, w)...)
	var ok []judgeFit
	for i, f := range v.fits {
		if errors.Is(f.err, calib.ErrNoProbes) {
			continue // measured above, nothing to fit
		}
		if f.err != nil {
			lines = append(lines, widgets.WrapStyled(st.Warn, fmt.Sprintf("%c %s: %v", judgeMark(i), f.judge, f.err), w)...)
			continue
		}
		ok = append(ok, judgeFit{judge: fmt.Sprintf("%c %s", judgeMark(i), f.judge), rep: f.rep})
		if s := f.rep.Study; s != nil {
			lines = append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("%c %s", judgeMark(i), s.Short()[1]), w)))
		}
	}
	if len(ok) < 2 {
		switch {
		case v.busy:
		case v.agree != nil && len(v.agree.res.Order) >= 2:
			lines = append(lines, widgets.WrapStyled(st.Muted, fmt.Sprintf(
				"the method tables and profiles compare judges with probe answers: %d here. Probing a judge (Run tab, s) adds it.", len(ok)), w)...)
		case len(v.fits) == 0 && v.gen == 0:
			lines = append(lines, widgets.WrapStyled(st.Muted,
				"c fits every judge of the workspace with answers on this dataset and bank version, with the Fit tab's metric, and compares them; every judge's agreement with the labels is measured too, probes or not.", w)...)
		default:
			have := "no judge has"
			for _, f := range v.fits {
				if f.err == nil {
					have = "only judge " + f.judge + " has"
				}
			}
			lines = append(lines, widgets.WrapStyled(st.Muted, have+
				" answers on this dataset and bank version. A second judge makes a comparison: run another model or the expected-score mode (Run tab, e), or import scores (prism import scores); then c.", w)...)
		}
		return lines
	}
	lines = append(lines, compareMethodLines(st, ok, w)...)
	// Profiles: per attribute the judges' means on one axis for a_k and one
	// for e_k, whether their signs agree, and under it per judge the
	// numbers: the mean over the outer folds and the fold range.
	var attrs []string
	for _, f := range ok {
		for a := range f.rep.Profiles {
			if !slices.Contains(attrs, a) {
				attrs = append(attrs, a)
			}
		}
	}
	slices.Sort(attrs)
	nw := 9
	for _, a := range attrs {
		nw = max(nw, len([]rune(a)))
	}
	nw = min(nw, 12)
	const signW = 6 // "agree", "differ"
	bw := max((w-nw-2*(1+1+signW))/2, 6)
	var as, es []float64
	for _, f := range ok {
		for _, p := range f.rep.Profiles {
			as, es = append(as, p.A.Mean), append(es, p.E.Mean)
		}
	}
	alo, ahi := widgets.GainAxis(as...)
	elo, ehi := widgets.GainAxis(es...)
	lines = append(lines, "", st.Title.Render(widgets.Fit(fmt.Sprintf("profiles: fold means, a letter per judge (%c: several in one cell), │ zero", overlapMark), w)),
		st.Muted.Render(widgets.Fit("per judge: mean over the outer folds [fold min, fold max]", w)))
	lines = append(lines, st.Label.Render(widgets.Fit(fmt.Sprintf("%-*s %-*s %-*s %-*s %s", nw, "attribute", bw, "a_k", signW, "signs", bw, "e_k", "signs"), w)))
	for _, a := range attrs {
		var am, em []float64
		var marks []rune
		var nums []string
		for i, f := range ok {
			p, has := f.rep.Profiles[a]
			if !has {
				continue
			}
			am, em, marks = append(am, p.A.Mean), append(em, p.E.Mean), append(marks, judgeMark(i))
			nums = append(nums, fmt.Sprintf("%-*s %-*s %s", nw, "  "+widgets.ClipMiddle(f.judge, nw-2),
				bw+1+signW, widgets.FoldRange(p.A.Mean, p.A.Min, p.A.Max), widgets.FoldRange(p.E.Mean, p.E.Min, p.E.Max)))
		}
		row := fmt.Sprintf("%-*s %s %-*s %s %s", nw, widgets.Clip(a, nw),
			widgets.DotRow(am, marks, 0, alo, ahi, bw, overlapMark), signW, direction(am),
			widgets.DotRow(em, marks, 0, elo, ehi, bw, overlapMark), direction(em))
		s := st.Text
		if direction(am) == "differ" || direction(em) == "differ" {
			s = st.Warn
		}
		lines = append(lines, s.Render(widgets.Fit(row, w)))
		for _, n := range nums {
			lines = append(lines, st.Muted.Render(widgets.Fit(n, w)))
		}
	}
	lines = append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("%-*s %-*s %-*s %s", nw, "axes", bw, widgets.Fixed4(alo)+" … "+widgets.Fixed4(ahi), signW, "", widgets.Fixed4(elo)+" … "+widgets.Fixed4(ehi)), w)))
	return lines
}

// compareMethodLines are the judges' method tables side by side: per
// method each judge's mean and difference from Vanilla. A judge's column
// is as wide as its name when the row has room; a longer name is cut in
// its middle. When a judge has rubric baselines, the rows are grouped as
// Table 2: each judge's rubric-based rows (its own SAJA and G-Eval
// ratings; — for a judge without them), then the rubric-free methods.
func compareMethodLines(st *styles.Styles, ok []judgeFit, w int) []string {
	type cmpRow struct {
		group, label string
		res          func(r *calib.Report) *calib.MethodResult
	}
	var rows []cmpRow
	labelW := 10
	var names []string
	for _, f := range ok {
		for _, n := range f.rep.BaselineNames() {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	if len(names) > 0 {
		// Every judge's names in Table 2's order (SAJA, then G-Eval).
		union := &calib.Report{Baselines: map[string]*calib.BaselineResult{}}
		for _, f := range ok {
			maps.Copy(union.Baselines, f.rep.Baselines)
		}
		for _, n := range union.BaselineNames() {
			rows = append(rows, cmpRow{group: groupRubric, label: "  " + calib.BaselineLabel(n, union.Baselines[n].Kind),
				res: func(r *calib.Report) *calib.MethodResult {
					if b := r.Baselines[n]; b != nil {
						return &b.MethodResult
					}
					return nil
				}})
		}
	}
	for _, fm := range fitMethods {
		label := widgets.Clip(fm.label, 10)
		if len(names) > 0 {
			label = "  " + fm.label
		}
		rows = append(rows, cmpRow{group: groupFree, label: label, res: func(r *calib.Report) *calib.MethodResult { return r.Methods.Get(fm.m) }})
	}
	if len(names) > 0 {
		for _, row := range rows {
			labelW = max(labelW, len([]rune(row.label)))
		}
	}
	colW := 16 // "0.6917 +0.0304" and two spaces
	for _, f := range ok {
		colW = max(colW, min(len([]rune(f.judge)), (w-labelW)/len(ok)-1))
	}
	head := fmt.Sprintf("%-*s", labelW, "method")
	for _, f := range ok {
		head += fmt.Sprintf(" %-*s", colW, widgets.ClipMiddle(f.judge, colW))
	}
	lines := []string{st.Label.Render(widgets.Fit(head, w))}
	group := ""
	for _, cr := range rows {
		if !slices.ContainsFunc(ok, func(f judgeFit) bool { return cr.res(f.rep) != nil }) {
			continue
		}
		if len(names) > 0 && cr.group != group {
			group = cr.group
			lines = append(lines, st.Title.Render(widgets.Fit(group, w)))
		}
		row := fmt.Sprintf("%-*s", labelW, cr.label)
		for _, f := range ok {
			res := cr.res(f.rep)
			cell := "—"
			if res != nil {
				cell = mean4(res.Mean)
				if res.DiffVsVanilla != nil {
					cell += " " + gain4(res.DiffVsVanilla.Mean)
				}
			}
			row += fmt.Sprintf(" %-*s", colW, cell)
		}
		lines = append(lines, widgets.Fit(row, w))
	}
	if len(names) > 0 {
		lines = append(lines, st.Muted.Render(widgets.Fit("per judge: mean, Δ vs its Vanilla; rubric rows from its own rubric ratings (— none)", w)))
	}
	return lines
}

// Keys are the Compare tab's own bindings.
func (v *compareTab) Keys(a *App) []key.Binding { return []key.Binding{a.keys.Compare} }

func (v *compareTab) Badge(*App) string { return "" }
func (v *compareTab) Editing() bool     { return false }

// Update handles the Compare tab's keys and the fits it asked for.
func (v *compareTab) Update(a *App, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.Move(msg.Delta)
	case tea.KeyPressMsg:
		if key.Matches(msg, a.keys.Compare) {
			return v.refit(a)
		}
	case compareMsg:
		if msg.gen == v.gen {
			v.busy, v.fits, v.err = false, msg.fits, msg.err
			v.agree, v.aerr = msg.agree, msg.agreeErr
		}
	}
	return nil
}
