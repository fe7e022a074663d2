package bank

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/calib/diag"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// The Bank tab's probe-diagnostics panel (docs/diagnostics.md), below
// the signal panel: wording strength and joint instructions when the bank
// has graded wordings or joint pairs, and score resolution when the
// workspace holds the same study on the 0–100 scale. Computed from stored
// answers only (prism diagnose acquires what is missing), in a tea.Cmd.

// diagResamples is the panel's bootstrap size (docs/protocol.md §15).
const diagResamples = 2000

// diagPanel is the panel's state: reports by study key and answer
// generation, and whether one is being computed.
type diagPanel struct {
	reports map[diagKey]*diagReport
	busy    bool
}

// diagKey is a study at one generation of the workspace's answers.
type diagKey struct {
	key study.Key
	gen int
}

// diagReport is one computation's outcome; a nil part is not shown.
type diagReport struct {
	wording    *diag.WordingReport
	joint      *diag.JointReport
	resolution *diag.ResolutionReport
	scales     [2]string
	err        error
}

// diagMsg carries a computed report.
type diagMsg struct {
	key diagKey
	rep *diagReport
}

// refresh starts the computation for the current study unless it is
// cached or one is running.
func (p *diagPanel) refresh(svc Services, b *banks.Bank, task string) tea.Cmd {
	k, ok := svc.Key()
	if !ok || p.busy {
		return nil
	}
	dk := diagKey{k, svc.Versions().Total(nil)}
	if _, cached := p.reports[dk]; cached {
		return nil
	}
	p.busy = true
	return diagCmd(svc.Context(), svc.Store(), dk, b.Clone(), task)
}

// onMsg stores a report and asks for the current study's if the study
// changed meanwhile.
func (p *diagPanel) onMsg(svc Services, b *banks.Bank, task string, msg diagMsg) tea.Cmd {
	p.busy = false
	if p.reports == nil {
		p.reports = map[diagKey]*diagReport{}
	}
	p.reports[msg.key] = msg.rep
	if svc.Current() == tab.Bank {
		return p.refresh(svc, b, task)
	}
	return nil
}

// diagCmd reads the stored answers of the study (and of the bank on
// 0–100) and computes the diagnostics off the UI goroutine.
func diagCmd(ctx context.Context, st *store.Store, k diagKey, b *banks.Bank, task string) tea.Cmd {
	return func() tea.Msg {
		rep := &diagReport{}
		opts := diag.DefaultOptions()
		opts.Bootstrap = diagResamples
		rows, err := st.Scores(ctx, k.key.Dataset, k.key.Judge, k.key.BankHash)
		if err != nil {
			return diagMsg{k, &diagReport{err: fmt.Errorf("reading scores: %w", err)}}
		}
		if b.HasLevels() {
			if rep.wording, err = diag.Wording(ctx, rows, opts); err != nil {
				return diagMsg{k, &diagReport{err: err}}
			}
		}
		if len(b.Joint.Pairs) > 0 {
			if rep.joint, err = diag.Joint(ctx, rows, opts); err != nil {
				return diagMsg{k, &diagReport{err: err}}
			}
		}
		t, ok := b.Tasks[task]
		if !ok || len(rows) == 0 || (t.Scale.Min == 0 && t.Scale.Max == 100) {
			return diagMsg{k, rep}
		}
		fine := b.Clone()
		if fine.Rescale(task, 0, 100) != nil {
			return diagMsg{k, rep}
		}
		rowsB, err := st.Scores(ctx, k.key.Dataset, k.key.Judge, fine.Hash())
		if err != nil || len(rowsB) == 0 {
			return diagMsg{k, rep}
		}
		rep.scales = [2]string{t.Scale.Range(), fine.Tasks[task].Scale.Range()}
		if rep.resolution, err = diag.Resolution(ctx, rows, rowsB, rep.scales[0], rep.scales[1], opts); err != nil {
			return diagMsg{k, &diagReport{err: err}}
		}
		return diagMsg{k, rep}
	}
}

// lines draws the panel in w cells: nothing when there is nothing to
// show (a bank without levels or pairs, no 0–100 answers), so the Bank
// tab of an ordinary bank is unchanged.
func (p *diagPanel) lines(svc Services, b *banks.Bank, st *styles.Styles, w int) []string {
	k, ok := svc.Key()
	if !ok {
		return nil
	}
	r := p.reports[diagKey{k, svc.Versions().Total(nil)}]
	hasLevels := b.HasLevels() || len(b.Joint.Pairs) > 0
	switch {
	case r == nil && hasLevels:
		return []string{st.Title.Render(widgets.Fit("Probe diagnostics", w)), st.Muted.Render("computing…")}
	case r == nil:
		return nil
	case r.err != nil:
		return append([]string{st.Title.Render(widgets.Fit("Probe diagnostics", w))}, widgets.WrapStyled(st.Bad, r.err.Error(), w)...)
	}
	var out []string
	if wr := r.wording; wr != nil {
		out = append(out, wordingLines(st, wr, w)...)
	}
	if jr := r.joint; jr != nil {
		out = append(out, jointLine(st, jr, w))
	}
	if rr := r.resolution; rr != nil {
		out = append(out, resolutionLine(st, rr, w))
	}
	if len(out) == 0 {
		return nil
	}
	return append([]string{st.Title.Render(widgets.Fit("Probe diagnostics · stored answers · "+strconv.Itoa(diagResamples)+" resamples", w))}, out...)
}

// wordingLines: per level the pooled reproducible RMS of O with its
// interval and the E^c/O and E^base/O ratios (Fig. 3b).
func wordingLines(st *styles.Styles, r *diag.WordingReport, w int) []string {
	if len(r.Pooled) == 0 {
		return []string{st.Muted.Render(widgets.Fit("wording: too few: "+r.TooFew, w))}
	}
	if w < 70 { // narrow: the three levels on two lines, no intervals
		var o, eb []string
		for _, p := range r.Pooled {
			o, eb = append(o, widgets.Num(p.ORMS.Value)), append(eb, widgets.Num(p.EbaseOverO.Value))
		}
		return []string{
			st.Text.Render(widgets.Fit("wording  RMS O by level   "+strings.Join(o, " / "), w)),
			st.Text.Render(widgets.Fit("         E^base/O by level "+strings.Join(eb, " / "), w)),
		}
	}
	out := []string{st.Label.Render(widgets.Fit("wording  level     RMS O [95% CI]        E^c/O  E^base/O", w))}
	for _, p := range r.Pooled {
		out = append(out, st.Text.Render(widgets.Fit(fmt.Sprintf("         %-8s  %s %-15s %6s  %6s", p.Level, widgets.Num(p.ORMS.Value), diagCI(p.ORMS.CI), widgets.Num(p.EcOverO.Value), widgets.Num(p.EbaseOverO.Value)), w)))
	}
	return out
}

// jointLine: the pooled projection and interaction ratio (Fig. 7).
func jointLine(st *styles.Styles, r *diag.JointReport, w int) string {
	if r.PooledPairs == 0 {
		return st.Muted.Render(widgets.Fit("joint: too few: "+r.TooFew, w))
	}
	if w < 70 {
		return st.Text.Render(widgets.Fit(fmt.Sprintf("joint    %d pairs: projection %s · interaction %s", r.PooledPairs,
			widgets.Num(r.PooledProjection.Value), widgets.Num(r.PooledInteraction.Value)), w))
	}
	return st.Text.Render(widgets.Fit(fmt.Sprintf("joint    %d pairs: projection %s %s · interaction/main %s %s", r.PooledPairs,
		widgets.Num(r.PooledProjection.Value), diagCI(r.PooledProjection.CI), widgets.Num(r.PooledInteraction.Value), diagCI(r.PooledInteraction.CI)), w))
}

// resolutionLine: tied pairs and zero responses on both scales.
func resolutionLine(st *styles.Styles, r *diag.ResolutionReport, w int) string {
	if r.TooFew != "" {
		return st.Muted.Render(widgets.Fit("resolution: too few: "+r.TooFew, w))
	}
	pc := func(e diag.Est) string { return strconv.FormatFloat(100*e.Value, 'f', 1, 64) + "%" }
	return st.Text.Render(widgets.Fit(fmt.Sprintf("resolution %s → %s: tied pairs %s → %s · zero responses %s → %s", r.A.Scale, r.B.Scale,
		pc(r.A.TiedShare), pc(r.B.TiedShare), pc(r.A.ZeroShare), pc(r.B.ZeroShare)), w))
}

// diagCI is "[lo, hi]", or "" when undefined.
func diagCI(c [2]float64) string {
	if c[0] != c[0] || c[1] != c[1] {
		return ""
	}
	return "[" + widgets.Num(c[0]) + ", " + widgets.Num(c[1]) + "]"
}
