package compare

import (
	"fmt"
	"slices"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// cellW is the width of a "+0.0414 [+0.0003, +0.0825]" cell.
const cellW = 26

// profileLines are the profiles: per attribute the judges' means on one
// axis for a_k and one for e_k with whether their signs agree or oppose,
// then per judge its mean and fold range, and per later judge its
// difference from the first (A) with the paired fold range (Diff); then
// what the marks and the differences mean.
func profileLines(st *styles.Styles, ok []JudgeFit, w int) []string {
	attrs := profileAttrs(ok)
	nw := 9
	for _, a := range attrs {
		nw = max(nw, len([]rune(a)))
	}
	nw = min(nw, 12)
	const signW = 6 // "agree", "oppose"
	bw := max((w-nw-2*(1+1+signW))/2, 6)
	var as, es []float64
	for _, f := range ok {
		for _, p := range f.Rep.Profiles {
			as, es = append(as, p.A.Mean), append(es, p.E.Mean)
		}
	}
	alo, ahi := widgets.GainAxis(as...)
	elo, ehi := widgets.GainAxis(es...)
	lines := []string{"", st.Title.Render(widgets.Fit(fmt.Sprintf("profiles: fold means, a letter per judge (%c: several in one cell), │ zero", analysis.OverlapMark), w)),
		st.Muted.Render(widgets.Fit("per judge: a_k and e_k, mean over the outer folds [fold min, fold max]", w))}
	lines = append(lines, st.Label.Render(widgets.Fit(fmt.Sprintf("%-*s %-*s %-*s %-*s %s", nw, "attribute", bw, "a_k", signW, "signs", bw, "e_k", "signs"), w)))
	lw := labelWidth(ok, w)
	for _, a := range attrs {
		var am, em []float64
		var as, es []calib.ProfileStat
		var marks []rune
		for i, f := range ok {
			if p, has := f.Rep.Profiles[a]; has {
				am, em, marks = append(am, p.A.Mean), append(em, p.E.Mean), append(marks, JudgeMark(i))
				as, es = append(as, p.A), append(es, p.E)
			}
		}
		row := fmt.Sprintf("%-*s %s %-*s %s %s", nw, widgets.Clip(a, nw),
			widgets.DotRow(am, marks, 0, alo, ahi, bw, analysis.OverlapMark), signW, signMark(as),
			widgets.DotRow(em, marks, 0, elo, ehi, bw, analysis.OverlapMark), signMark(es))
		s := st.Text
		if signMark(as) == markOppose || signMark(es) == markOppose {
			s = st.Warn
		}
		lines = append(lines, s.Render(widgets.Fit(row, w)))
		lines = append(lines, attrNumbers(st, ok, a, lw, w)...)
	}
	lines = append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("%-*s %-*s %-*s %s", nw, "axes", bw, widgets.Fixed4(alo)+" … "+widgets.Fixed4(ahi), signW, "", widgets.Fixed4(elo)+" … "+widgets.Fixed4(ehi)), w)))
	return append(lines, profileNotes(st, ok, w)...)
}

// profileAttrs are the attributes any judge has a profile of, sorted.
func profileAttrs(ok []JudgeFit) []string {
	var attrs []string
	for _, f := range ok {
		for a := range f.Rep.Profiles {
			if !slices.Contains(attrs, a) {
				attrs = append(attrs, a)
			}
		}
	}
	slices.Sort(attrs)
	return attrs
}

// labelWidth is the width of the judges' names under an attribute: the
// longest name, uncut while the two cells still fit in w.
func labelWidth(ok []JudgeFit, w int) int {
	lw := len([]rune("A−B not paired"))
	for _, f := range ok {
		lw = max(lw, len([]rune(f.Judge)))
	}
	return max(min(lw, w-2-2*(1+cellW)-1), 6)
}

// attrNumbers are an attribute's numbers, lw wide names: per judge its
// a_k and e_k with their fold ranges, then per later judge X the
// difference A − X with the paired fold range, or "not paired".
func attrNumbers(st *styles.Styles, ok []JudgeFit, attr string, lw, w int) []string {
	var lines []string
	for _, f := range ok {
		if p, has := f.Rep.Profiles[attr]; has {
			lines = append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("  %-*s %-*s  %s", lw, widgets.ClipMiddle(f.Judge, lw),
				cellW, widgets.FoldRange(p.A.Mean, p.A.Min, p.A.Max), widgets.FoldRange(p.E.Mean, p.E.Min, p.E.Max)), w)))
		}
	}
	pa, has := ok[0].Rep.Profiles[attr]
	if !has {
		return lines
	}
	for i, f := range ok[1:] {
		p, has := f.Rep.Profiles[attr]
		if !has {
			continue
		}
		paired := Paired(ok[0].Rep, f.Rep) == ""
		label := fmt.Sprintf("%c−%c", JudgeMark(0), JudgeMark(i+1))
		row := fmt.Sprintf("  %-*s %-*s  %s", lw, label, cellW, diffCell(diffOf(pa.A, p.A, paired)), diffCell(diffOf(pa.E, p.E, paired)))
		lines = append(lines, st.Text.Render(widgets.Fit(row, w)))
	}
	return lines
}

// diffCell prints a Diff as its mean and paired fold range, or its mean
// and "not paired".
func diffCell(d Diff) string {
	if !d.Paired {
		return widgets.Fixed4(d.Mean) + " not paired"
	}
	return widgets.FoldRange(d.Mean, d.Min, d.Max)
}

// profileNotes say what the marks and the differences mean, and why a
// judge's differences are not paired.
func profileNotes(st *styles.Styles, ok []JudgeFit, w int) []string {
	a, other, diffName := string(JudgeMark(0)), string(JudgeMark(1)), "A−B"
	if len(ok) > 2 {
		other, diffName = "judge X", "A−X"
	}
	notes := []string{
		"agree / oppose: every judge's fold range excludes 0, on the same side / on opposite sides. " +
			"Opposing signs of a_k mean the correction pushes the two judges' scores in opposite directions for that attribute: " +
			"one judge over-weights it relative to the human labels, the other under-weights it.",
		fmt.Sprintf("%s: %s's mean minus %s's, [paired fold range]: the smallest and largest of the per-fold differences, "+
			"each outer fold holding out the same contexts for both fits (the same order π); a range over the folds, not a confidence interval. "+
			"Blank signs: some judge's fold range includes 0.", diffName, a, other),
	}
	if len(ok) > 2 {
		notes = append(notes, fmt.Sprintf("With %d judges, every difference is against the first, %s.", len(ok), ok[0].Judge))
	}
	for i, f := range ok[1:] {
		if why := Paired(ok[0].Rep, f.Rep); why != "" {
			notes = append(notes, fmt.Sprintf("%s−%c not paired: %s, so the folds are not the same contexts; only the difference of the means is shown.", a, JudgeMark(i+1), why))
		}
	}
	var lines []string
	for _, n := range notes {
		lines = append(lines, widgets.WrapStyled(st.Muted, n, w)...)
	}
	return lines
}
