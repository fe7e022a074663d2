package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/calib/diag"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
)

// The Bank screen's probe-diagnostics panel (docs/diagnostics.md), below
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
	key studyKey
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
func (p *diagPanel) refresh(a *App, b *banks.Bank, task string) tea.Cmd {
	k, ok := a.currentKey()
	if !ok || p.busy {
		return nil
	}
	dk := diagKey{k, a.sigGen}
	if _, cached := p.reports[dk]; cached {
		return nil
	}
	p.busy = true
	return diagCmd(a.ctx, a.study.Store, dk, b.Clone(), task)
}

// onMsg stores a report and asks for the current study's if the study
// changed meanwhile.
func (p *diagPanel) onMsg(a *App, b *banks.Bank, task string, msg diagMsg) tea.Cmd {
	p.busy = false
	if p.reports == nil {
		p.reports = map[diagKey]*diagReport{}
	}
	p.reports[msg.key] = msg.rep
	if a.screen == screenBank {
		return p.refresh(a, b, task)
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
		rows, err := st.Scores(ctx, k.key.dataset, k.key.judge, k.key.bankHash)
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
		rowsB, err := st.Scores(ctx, k.key.dataset, k.key.judge, fine.Hash())
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
// screen of an ordinary bank is unchanged.
func (p *diagPanel) lines(a *App, st *styles.Styles, w int) []string {
	k, ok := a.currentKey()
	if !ok {
		return nil
	}
	r := p.reports[diagKey{k, a.sigGen}]
	hasLevels := a.bank.bank.HasLevels() || len(a.bank.bank.Joint.Pairs) > 0
	switch {
	case r == nil && hasLevels:
		return []string{st.Title.Render(fit("Probe diagnostics", w)), st.Muted.Render("computing…")}
	case r == nil:
		return nil
	case r.err != nil:
		return append([]string{st.Title.Render(fit("Probe diagnostics", w))}, wrapStyled(st.Bad, r.err.Error(), w)...)
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
	return append([]string{st.Title.Render(fit("Probe diagnostics · stored answers · "+strconv.Itoa(diagResamples)+" resamples", w))}, out...)
}

// wordingLines: per level the pooled reproducible RMS of O with its
// interval and the E^c/O and E^base/O ratios (Fig. 3b).
func wordingLines(st *styles.Styles, r *diag.WordingReport, w int) []string {
	if len(r.Pooled) == 0 {
		return []string{st.Muted.Render(fit("wording: too few: "+r.TooFew, w))}
	}
	if w < 70 { // narrow: the three levels on two lines, no intervals
		var o, eb []string
		for _, p := range r.Pooled {
			o, eb = append(o, num(p.ORMS.Value)), append(eb, num(p.EbaseOverO.Value))
		}
		return []string{
			st.Text.Render(fit("wording  RMS O by level   "+strings.Join(o, " / "), w)),
			st.Text.Render(fit("         E^base/O by level "+strings.Join(eb, " / "), w)),
		}
	}
	out := []string{st.Label.Render(fit("wording  level     RMS O [95% CI]        E^c/O  E^base/O", w))}
	for _, p := range r.Pooled {
		out = append(out, st.Text.Render(fit(fmt.Sprintf("         %-8s  %s %-15s %6s  %6s", p.Level, num(p.ORMS.Value), diagCI(p.ORMS.CI), num(p.EcOverO.Value), num(p.EbaseOverO.Value)), w)))
	}
	return out
}

// jointLine: the pooled projection and interaction ratio (Fig. 7).
func jointLine(st *styles.Styles, r *diag.JointReport, w int) string {
	if r.PooledPairs == 0 {
		return st.Muted.Render(fit("joint: too few: "+r.TooFew, w))
	}
	if w < 70 {
		return st.Text.Render(fit(fmt.Sprintf("joint    %d pairs: projection %s · interaction %s", r.PooledPairs,
			num(r.PooledProjection.Value), num(r.PooledInteraction.Value)), w))
	}
	return st.Text.Render(fit(fmt.Sprintf("joint    %d pairs: projection %s %s · interaction/main %s %s", r.PooledPairs,
		num(r.PooledProjection.Value), diagCI(r.PooledProjection.CI), num(r.PooledInteraction.Value), diagCI(r.PooledInteraction.CI)), w))
}

// resolutionLine: tied pairs and zero responses on both scales.
func resolutionLine(st *styles.Styles, r *diag.ResolutionReport, w int) string {
	if r.TooFew != "" {
		return st.Muted.Render(fit("resolution: too few: "+r.TooFew, w))
	}
	pc := func(e diag.Est) string { return strconv.FormatFloat(100*e.Value, 'f', 1, 64) + "%" }
	return st.Text.Render(fit(fmt.Sprintf("resolution %s → %s: tied pairs %s → %s · zero responses %s → %s", r.A.Scale, r.B.Scale,
		pc(r.A.TiedShare), pc(r.B.TiedShare), pc(r.A.ZeroShare), pc(r.B.ZeroShare)), w))
}

// diagCI is "[lo, hi]", or "" when undefined.
func diagCI(c [2]float64) string {
	if c[0] != c[0] || c[1] != c[1] {
		return ""
	}
	return "[" + num(c[0]) + ", " + num(c[1]) + "]"
}
