package ui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	datatab "github.com/prism-eval/prism/ui/tabs/data"
	"github.com/prism-eval/prism/ui/widgets"
)

// Calibrators in the TUI (docs/calibrator.md): S on the Fit tab saves
// the calibrator of the fit on screen (ui/tabs/fit; the App remembers its
// path, tab.CalibratorSavedMsg); L on the Data
// tab reads a calibrator file and applies it (calib.Calibrator.Apply)
// to the stored answers of its judge on the open dataset; Inspect shows a
// candidate's terms under it. Reading, fitting, applying and writing run
// in commands; the App keeps the loaded calibrator and its application,
// which the Data and Inspect tabs show.

// calibState is the calibrator loaded on the Data tab and its
// application to a dataset of the workspace.
type calibState struct {
	path string            // the file cal was read from
	cal  *calib.Calibrator // nil until one is loaded
	// Generations of the loads and of the applications: the result of an
	// older one is dropped.
	loadGen, gen int
	reading      string // "reading FILE…" while a file is read, or ""
	busy         string // "applying…" while an application runs, or ""
	// loadErr is why the last load failed; the calibrator loaded before
	// (if any) and its application stay.
	loadErr error
	app     *calApplication // cal on the answers of a dataset, or nil
	last    string          // the last calibrator path saved or loaded: L's default
}

// calApplication is a calibrator applied to the stored answers of its
// judge on one dataset.
type calApplication struct {
	key    studyKey // the answers read (dataset, judge, bank hash)
	stored int      // App.versions.Total when they were read
	scored *calib.Scored
	index  map[[2]string]int // (context, candidate) → row of scored
	ctxN   map[string]int    // context → its scored candidates
	// mismatches name how the stored judge differs from the
	// calibrator's (study.Mismatches): shown, not refused.
	mismatches []string
	// missing says that the workspace holds no answers of the judge on
	// the dataset, and how to get them; err is why applying failed.
	missing string
	err     error
}

// row is the scored row of candidate cand of context ctx, or nil.
func (p *calApplication) row(ctx, cand string) *calib.ScoredRow {
	if p == nil || p.scored == nil {
		return nil
	}
	i, ok := p.index[[2]string{ctx, cand}]
	if !ok {
		return nil
	}
	return &p.scored.Rows[i]
}

type (
	// calLoadedMsg carries a calibrator file read on the Data tab.
	calLoadedMsg struct {
		gen  int
		path string
		cal  *calib.Calibrator
		err  error
	}
	// calAppliedMsg carries a calibrator applied to a dataset's answers.
	calAppliedMsg struct {
		gen int
		app *calApplication
	}
)

// calibratorDir is where calibrators are saved by default: beside the
// workspace's file, or in the current directory for the demo (whose
// workspace is removed at exit) or without a workspace.
func calibratorDir(s Session) string {
	if s.Store == nil || s.Demo || s.Store.Path() == "" {
		return "."
	}
	return filepath.Dir(s.Store.Path())
}

// loadCalibrator reads the calibrator at path (L on the Data tab) and
// applies it when read (onCalLoaded).
func (a *App) loadCalibrator(path string) tea.Cmd {
	c := &a.cal
	c.loadGen++
	c.reading, c.loadErr = "reading "+path+"…", nil
	return loadCalibratorCmd(path, c.loadGen)
}

// calibratorPath is the path L offers: the last calibrator saved or
// loaded, else the directory calibrators are saved in.
func (a *App) calibratorPath() string {
	if a.cal.last != "" {
		return a.cal.last
	}
	return calibratorDir(a.study) + string(filepath.Separator)
}

// calColumns are p's columns of the Data tab's candidate rows, nil when
// p scored nothing.
func calColumns(p *calApplication) *datatab.Columns {
	if p == nil || p.scored == nil {
		return nil
	}
	return &datatab.Columns{Header: calHeader, Row: func(ctx, cand string) string { return calRowText(p.row(ctx, cand)) }}
}

// loadCalibratorCmd reads and checks the calibrator file path.
func loadCalibratorCmd(path string, gen int) tea.Cmd {
	return func() tea.Msg {
		cal, err := calib.ReadCalibratorFile(path)
		return calLoadedMsg{gen: gen, path: path, cal: cal, err: err}
	}
}

// onCalLoaded takes a calibrator read from a file and applies it to the
// open dataset; a file that failed leaves the loaded calibrator as it was.
func (a *App) onCalLoaded(msg calLoadedMsg) tea.Cmd {
	c := &a.cal
	if msg.gen != c.loadGen {
		return nil
	}
	c.reading = ""
	if msg.err != nil {
		c.loadErr = msg.err
		return nil
	}
	c.path, c.cal, c.last, c.loadErr, c.app = msg.path, msg.cal, msg.path, nil, nil
	a.data.SetCalibrated(nil)
	return a.applyCalibrator()
}

// calKey is the answers a calibrator is applied to on the open dataset:
// its judge's (the study's judge, as the Run form names it, when it
// records none) under its bank version (the study's when it records none;
// an imported judge's answers have no bank and are taken under any).
func (a *App) calKey(cal *calib.Calibrator) (studyKey, error) {
	if a.study.Store == nil {
		return studyKey{}, tab.ErrNoWorkspace
	}
	if a.study.Dataset == nil || a.study.Dataset.Name == "" {
		return studyKey{}, errors.New("no dataset yet: i on the Data tab imports one")
	}
	k := studyKey{Dataset: a.study.Dataset.Name, BankHash: a.bank.Bank().Hash()}
	if cal.Bank != nil {
		k.BankHash = cal.Bank.Hash
	}
	if cal.Judge != nil {
		k.Judge = cal.Judge.Name
		return k, nil
	}
	cur, err := a.requireKey()
	if err != nil {
		return k, fmt.Errorf("the calibrator records no judge, and the study names none: %w", err)
	}
	k.Judge = cur.Judge
	return k, nil
}

// applyCalibrator applies the loaded calibrator to the open dataset.
func (a *App) applyCalibrator() tea.Cmd {
	c := &a.cal
	if c.cal == nil {
		return nil
	}
	c.gen++
	k, err := a.calKey(c.cal)
	if err != nil {
		c.busy, c.app = "", &calApplication{key: k, stored: a.versions.Total(nil), err: err}
		a.data.SetCalibrated(nil)
		return nil
	}
	c.busy = "applying the calibrator to dataset " + k.Dataset + "…"
	return applyCalibratorCmd(a.ctx, a.study.Store, c.cal, c.path, k, a.versions.Total(nil), c.gen)
}

// applyCalibratorCmd applies cal to key's stored answers and the
// dataset's labels, and compares the stored judge with the calibrator's.
func applyCalibratorCmd(ctx context.Context, st *store.Store, cal *calib.Calibrator, path string, key studyKey, stored, gen int) tea.Cmd {
	return func() tea.Msg {
		return calAppliedMsg{gen: gen, app: applyCalibrator(ctx, st, cal, path, key, stored)}
	}
}

func applyCalibrator(ctx context.Context, st *store.Store, cal *calib.Calibrator, path string, key studyKey, stored int) *calApplication {
	p := &calApplication{key: key, stored: stored}
	// The study's planned runs, as prism score reads them.
	var rows []model.ScoreRow
	var labels []model.Label
	info, _, err := study.Pick(ctx, st, key.Dataset, key.Judge, key.BankHash)
	if err == nil {
		var d *study.Data
		if d, err = study.Read(ctx, st, info, study.Runs{}); err == nil {
			rows, labels = d.Rows, d.Labels
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		bank := ""
		if cal.Bank != nil {
			bank = " under the calibrator's bank " + cal.Bank.Name + " " + widgets.ShortHash(key.BankHash)
		}
		p.missing = fmt.Sprintf("the workspace has no answers of judge %s%s on dataset %s: score them with prism score --calibrator %s --dataset %s",
			key.Judge, bank, key.Dataset, path, key.Dataset)
		return p
	}
	if err != nil {
		p.err = err
		return p
	}
	j, err := st.Judge(ctx, key.Judge)
	if err != nil {
		p.err = err
		return p
	}
	bankNow := key.BankHash
	if j.Backend == store.ImportBackend {
		bankNow = "" // imported answers have no bank to compare
	}
	p.mismatches = study.Mismatches(cal, study.JudgeSnapshotOf(j, study.RunsOf(rows)), bankNow)
	src := fmt.Sprintf("%s (dataset %s, judge %s)", st.Path(), key.Dataset, key.Judge)
	// A study still being acquired shows what can be scored; the
	// warnings say what was left out.
	p.scored, p.err = cal.Apply(rows, labels, calib.ApplyOptions{ScoresFile: src, LabelsFile: src, SkipIncomplete: true})
	if p.err != nil {
		p.scored = nil
		return p
	}
	p.index, p.ctxN = make(map[[2]string]int, len(p.scored.Rows)), map[string]int{}
	for i, r := range p.scored.Rows {
		p.index[[2]string{r.Context, r.Candidate}] = i
		p.ctxN[r.Context]++
	}
	return p
}

// onCalApplied takes an application of the loaded calibrator.
func (a *App) onCalApplied(msg calAppliedMsg) {
	c := &a.cal
	if msg.gen != c.gen {
		return
	}
	c.busy, c.app = "", msg.app
	if msg.app.key.Dataset == a.data.Dataset().Name {
		a.data.SetCalibrated(calColumns(msg.app))
	}
}

// calTitle names the loaded calibrator: file, method, γ.
func (c *calibState) calTitle() string {
	return fmt.Sprintf("calibrator %s · %s · γ %g", filepath.Base(c.path), c.cal.Method, c.cal.Gamma.Value)
}

// transferText is the transfer line of an application with labels.
func transferText(t *calib.Transfer) string {
	est := func(e calib.Estimate, sign bool) string {
		f := "%.3f"
		if sign {
			f = "%+.3f"
		}
		return fmt.Sprintf(f+" ["+f+", "+f+"]", e.Mean, e.CI[0], e.CI[1])
	}
	what := fmt.Sprintf("%s, %d contexts", t.Metric, t.Contexts)
	if t.Contexts == 1 && t.Metric == model.MetricSpearman && t.Candidates > 0 {
		what = fmt.Sprintf("%s, %d contexts · %d candidates", t.Metric, t.Contexts, t.Candidates)
	}
	return fmt.Sprintf("transfer (%s): baseline %s → corrected %s, Δ %s", what,
		est(t.Baseline, false), est(t.Corrected, false), est(t.Diff, true))
}

// inSampleText says that labelled candidates were training candidates.
func inSampleText(t *calib.Transfer) string {
	return fmt.Sprintf("in-sample: %d of the %d labelled candidates were training candidates of the calibrator, so the corrected agreement overstates transfer",
		t.InSample, t.Candidates)
}

// calLines are the Data tab's lines about the loaded calibrator: what
// is being done, the last load's error, the calibrator, its transfer
// check on the dataset and what differs from the judge it was fitted on.
func (a *App) calLines(st *styles.Styles, w int) []string {
	c := &a.cal
	var lines []string
	for _, b := range []string{c.reading, c.busy} {
		if b != "" {
			lines = append(lines, widgets.WrapSpacesStyled(st.Title, b, w)...)
		}
	}
	if c.loadErr != nil {
		lines = append(lines, widgets.WrapSpacesStyled(st.Bad, "calibrator not loaded: "+c.loadErr.Error(), w)...)
	}
	if c.cal == nil {
		return lines
	}
	lines = append(lines, widgets.WrapSpacesStyled(st.Label, c.calTitle(), w)...)
	p := c.app
	if p == nil {
		return lines
	}
	if p.key.Dataset != a.data.Dataset().Name {
		return append(lines, widgets.WrapSpacesStyled(st.Muted, "applied to dataset "+p.key.Dataset+", not this one", w)...)
	}
	lines = append(lines, st.Muted.Render(widgets.Fit(analysis.KeyLine(p.key, w), w)))
	if p.missing != "" {
		return append(lines, widgets.WrapSpacesStyled(st.Warn, p.missing, w)...)
	}
	if p.err != nil {
		return append(lines, widgets.WrapSpacesStyled(st.Bad, "not applied: "+p.err.Error(), w)...)
	}
	if p.stored != a.versions.Total(nil) {
		lines = append(lines, widgets.WrapSpacesStyled(st.Warn, "answers were stored since it was applied: L applies it again", w)...)
	}
	if len(p.mismatches) > 0 {
		lines = append(lines, widgets.WrapSpacesStyled(st.Warn, "fitted on another judge configuration: "+strings.Join(p.mismatches, "; "), w)...)
	}
	s := p.scored
	if t := s.Transfer; t != nil {
		lines = append(lines, widgets.WrapSpacesStyled(st.Text, transferText(t), w)...)
		if t.InSample > 0 {
			lines = append(lines, widgets.WrapSpacesStyled(st.Warn, inSampleText(t), w)...)
		}
	}
	for _, wn := range s.Warnings {
		lines = append(lines, widgets.WrapSpacesStyled(st.Warn, wn, w)...)
	}
	if s.Centering == calib.CenterWithinContext {
		lines = append(lines, widgets.WrapSpacesStyled(st.Muted, "ŷ orders the candidates of a context; it is not on the human scale", w)...)
	}
	return lines
}

// calRowText is a candidate's calibrator columns on the Data tab:
// baseline, corrected score and rank before → after, or blanks.
func calRowText(r *calib.ScoredRow) string {
	if r == nil {
		return fmt.Sprintf("%5s %7s %-7s", "—", "—", "")
	}
	return fmt.Sprintf("%5.2f %7.3f %-7s", r.Baseline, r.Corrected, midRank(r.RankBefore)+"→"+midRank(r.RankAfter))
}

// calHeader heads the calibrator columns.
const calHeader = "   s0       ŷ rank   "

// midRank prints a mid-rank: "2", "2.5".
func midRank(r float64) string {
	if math.IsNaN(r) {
		return "—"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", r), ".0")
}

// calInspectLines are the Inspect tab's lines about the loaded
// calibrator for the inspected candidate: its corrected score and ranks
// and each unit's term, largest |term| first; a line saying why not when
// the calibrator is applied to other answers.
func (a *App) calInspectLines(st *styles.Styles, key studyKey, ctx, cand string, w int) []string {
	c := &a.cal
	if c.cal == nil {
		return nil
	}
	lines := append([]string{""}, widgets.WrapSpacesStyled(st.Label, c.calTitle(), w)...)
	p := c.app
	switch {
	case p == nil:
		return append(lines, widgets.WrapSpacesStyled(st.Muted, "not applied yet", w)...)
	case p.key.Dataset != key.Dataset || p.key.Judge != key.Judge:
		return append(lines, widgets.WrapSpacesStyled(st.Muted, fmt.Sprintf("applied to judge %s on dataset %s, not to these answers", p.key.Judge, p.key.Dataset), w)...)
	case p.scored == nil:
		return append(lines, widgets.WrapSpacesStyled(st.Muted, "not applied to this dataset (see the Data tab)", w)...)
	}
	r := p.row(ctx, cand)
	if r == nil {
		return append(lines, widgets.WrapSpacesStyled(st.Muted, "the calibrator scored no answers of this candidate", w)...)
	}
	n := p.ctxN[ctx]
	lines = append(lines, widgets.Fit(fmt.Sprintf("corrected %s · rank %s → %s", fixedPlain(r.Corrected), widgets.Rank(r.RankBefore, n), widgets.Rank(r.RankAfter, n)), w))
	if r.InSample {
		lines = append(lines, widgets.WrapSpacesStyled(st.Warn, "a training candidate of the calibrator: in-sample", w)...)
	}
	if r.Imputed > 0 {
		lines = append(lines, widgets.WrapSpacesStyled(st.Warn, fmt.Sprintf("%d score cells filled with the training mean", r.Imputed), w)...)
	}
	units := p.scored.Units
	order := make([]int, len(units))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		ax, ay := math.Abs(r.Terms[x]), math.Abs(r.Terms[y])
		switch {
		case ax > ay:
			return -1
		case ax < ay:
			return 1
		}
		return strings.Compare(units[x], units[y])
	})
	nw := 4
	for _, u := range units {
		nw = max(nw, len([]rune(u)))
	}
	nw = min(nw, 14)
	lines = append(lines, st.Label.Render(widgets.Fit(fmt.Sprintf("%-*s %8s", nw, "unit", "term"), w)))
	for _, i := range order {
		lines = append(lines, widgets.Fit(fmt.Sprintf("%-*s %8s", nw, widgets.Clip(units[i], nw), widgets.Fixed4(r.Terms[i])), w))
	}
	alpha := ""
	if c.cal.Alpha != 1 {
		alpha = fmt.Sprintf("%g·", c.cal.Alpha)
	}
	lines = append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("ŷ = %ss0 − Σ term, s0 %s; a term is what its unit subtracts", alpha, fixedPlain(r.Baseline)), w)))
	return lines
}

// fixedPlain prints a score with 4 decimals, or "—".
func fixedPlain(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return fmt.Sprintf("%.4f", f)
}
