package study

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// Runs chooses the runs an analysis reads of a study. The zero value is
// the planned runs: those the study's own acquisition planned (every run
// when none recorded a plan: imported scores, a workspace from before
// plans, a study only diagnostics acquired).
type Runs struct {
	All bool // every run stored, diagnostics' extra runs included
	N   int  // the first N runs (> 0)
}

// ParseRuns reads a --runs value: "planned", "all" or a count ≥ 1.
func ParseRuns(s string) (Runs, error) {
	switch s {
	case "", "planned":
		return Runs{}, nil
	case "all":
		return Runs{All: true}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return Runs{}, fmt.Errorf("--runs %q: want planned, all or a number of runs ≥ 1", s)
	}
	return Runs{N: n}, nil
}

func (r Runs) String() string {
	switch {
	case r.All:
		return "all"
	case r.N > 0:
		return strconv.Itoa(r.N)
	}
	return "planned"
}

// limit is how many runs r reads of a study planned with planned runs
// (0: every run).
func (r Runs) limit(planned int) int {
	switch {
	case r.All:
		return 0
	case r.N > 0:
		return r.N
	}
	return planned
}

// Pick finds the study of judge on dataset that an analysis reads: under
// bankHash when it is given, else the judge's only probe study there that
// its own acquisition planned (or, when none did, its only probe study).
// Studies only diagnostics acquired (other banks, other scales) are never
// picked silently: with several candidates Pick fails listing them, as
// prism ls words them, so the user chooses with --bank. note says which
// study was taken when there was a choice to make, else "".
func Pick(ctx context.Context, st *store.Store, dataset, judge, bankHash string) (info store.StudyInfo, note string, err error) {
	all, err := st.StudiesOf(ctx, dataset, judge)
	if err != nil {
		return info, "", err
	}
	var probes, planned []store.StudyInfo
	for _, s := range all {
		if s.Rubric {
			continue
		}
		// Imported scores have no bank: they are the judge's study
		// whichever bank is named (as store.Scores selects them).
		if bankHash != "" && (s.BankHash == bankHash || s.BankHash == "") {
			return s, "", nil
		}
		probes = append(probes, s)
		if s.PlannedRuns > 0 {
			planned = append(planned, s)
		}
	}
	switch {
	case bankHash == "" && len(planned) == 1:
		if len(probes) > 1 {
			note = fmt.Sprintf("study: bank %s, the one prism run planned; %d other bank versions hold only diagnostics' answers (--bank picks one)", label(planned[0]), len(probes)-1)
		}
		return planned[0], note, nil
	case bankHash == "" && len(planned) == 0 && len(probes) == 1:
		return probes[0], "", nil
	case bankHash == "" && len(probes) == 0:
		return info, "", fmt.Errorf("judge %q has no answers on dataset %q: %w", judge, dataset, store.ErrNotFound)
	}
	// No study to take: list the candidates with their progress.
	if probes, err = counted(ctx, st, dataset, judge); err != nil {
		return info, "", err
	}
	if bankHash != "" {
		return info, "", fmt.Errorf("judge %q has no answers on dataset %q under bank %s%s: %w", judge, dataset, model.ShortHash(bankHash), listed(probes), store.ErrNotFound)
	}
	return info, "", &AmbiguousError{Dataset: dataset, Judge: judge, Studies: probes}
}

// counted is the judge's probe studies on dataset with their counts
// (store.Studies), for a listing.
func counted(ctx context.Context, st *store.Store, dataset, judge string) ([]store.StudyInfo, error) {
	all, err := st.Studies(ctx)
	var out []store.StudyInfo
	for _, s := range all {
		if s.Dataset == dataset && s.Judge == judge && !s.Rubric {
			out = append(out, s)
		}
	}
	return out, err
}

// AmbiguousError says a judge has several studies on a dataset and none
// is the one to read: answers of different banks or scales are never
// pooled.
type AmbiguousError struct {
	Dataset, Judge string
	Studies        []store.StudyInfo
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("judge %q answered dataset %q under %d bank versions, which are never pooled; choose one with --bank NAME|HASH:%s",
		e.Judge, e.Dataset, len(e.Studies), listed(e.Studies))
}

// listed is the studies one a line, as prism ls words them.
func listed(ss []store.StudyInfo) string {
	var b strings.Builder
	for _, s := range ss {
		fmt.Fprintf(&b, "\n  %s: %s", label(s), Progress(s))
	}
	return b.String()
}

// label is a study's bank as prism ls names it: NAME HASH.
func label(s store.StudyInfo) string {
	if s.BankHash == "" {
		return "(imported, no bank)"
	}
	return strings.TrimSpace(s.BankName + " " + model.ShortHash(s.BankHash))
}

// Progress words a study's progress as prism ls does: planned requests
// against answered and failed, and what diagnostics added.
func Progress(s store.StudyInfo) string {
	if s.PlannedRuns == 0 {
		what := "no plan recorded"
		if len(s.Diagnostics) > 0 {
			what = "acquired by " + strings.Join(s.Diagnostics, ", ")
		}
		return fmt.Sprintf("%s; %d requests, %d answered, %d failed", what, s.Requests, s.Answered, s.Failed)
	}
	out := fmt.Sprintf("%d of %d planned answered (%d runs), %d failed", s.PlanAnswered, s.Planned, s.PlannedRuns, s.PlanFailed)
	if extra := s.Answered - s.PlanAnswered; extra > 0 {
		by := "runs beyond the plan"
		if len(s.Diagnostics) > 0 {
			by = strings.Join(s.Diagnostics, ", ")
		}
		out += fmt.Sprintf("; %d more answers of %s", extra, by)
	}
	return out
}

// Source names a study in reports and errors: the workspace, dataset,
// judge and bank.
func Source(path string, info store.StudyInfo) string {
	s := fmt.Sprintf("%s: dataset %s, judge %s", path, info.Dataset, info.Judge)
	if info.BankHash != "" {
		s += ", bank " + model.ShortHash(info.BankHash)
	}
	return s
}

// Data is what an analysis reads of one study: its answers in the runs
// chosen, the dataset's labels, and the Study that names them.
type Data struct {
	Study  model.Study
	Rows   []model.ScoreRow
	Labels []model.Label
}

// Read reads the study info names (from Pick), keeping the runs runs
// chooses.
func Read(ctx context.Context, st *store.Store, info store.StudyInfo, runs Runs) (*Data, error) {
	rows, labels, err := st.FitInput(ctx, info.Dataset, info.Judge, info.BankHash)
	if err != nil {
		return nil, err
	}
	keep := runFilter(info, runs)
	kept := rows[:0]
	for _, r := range rows {
		if keep(r.Run) {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("judge %q has no answers on dataset %q in runs %s: %w", info.Judge, info.Dataset, runs, store.ErrNotFound)
	}
	d := &Data{Rows: kept, Labels: labels}
	var c Counter
	for i := range kept {
		c.Add(&kept[i])
	}
	d.Study, err = Describe(ctx, st, info, runs, &c)
	return d, err
}

// Scan is Read without the slice of rows: fn gets each row kept, as
// store.ScanFitInput gives it (reserve sizes the reader's structures
// first), and the Study and the labels are returned.
func Scan(ctx context.Context, st *store.Store, info store.StudyInfo, runs Runs, reserve func([]model.Label, int), fn func(*model.ScoreRow) error) (model.Study, []model.Label, error) {
	keep := runFilter(info, runs)
	var c Counter
	labels, err := st.ScanFitInput(ctx, info.Dataset, info.Judge, info.BankHash, reserve, func(r *model.ScoreRow) error {
		if !keep(r.Run) {
			return nil
		}
		c.Add(r)
		return fn(r)
	})
	if err != nil {
		return model.Study{}, nil, err
	}
	if c.answers == 0 {
		return model.Study{}, nil, fmt.Errorf("judge %q has no answers on dataset %q in runs %s: %w", info.Judge, info.Dataset, runs, store.ErrNotFound)
	}
	s, err := Describe(ctx, st, info, runs, &c)
	return s, labels, err
}

// runFilter keeps the run labels runs reads of the study.
func runFilter(info store.StudyInfo, runs Runs) func(string) bool {
	n := runs.limit(info.PlannedRuns)
	return func(run string) bool { return store.RunInPlan(run, n) }
}

// Counter tallies what a study's rows hold, for its Study.
type Counter struct {
	answers    int
	contexts   map[string]map[string]bool // context → baseline runs
	candidates map[[2]string]bool
}

// Add counts one row.
func (c *Counter) Add(r *model.ScoreRow) {
	if c.contexts == nil {
		c.contexts, c.candidates = map[string]map[string]bool{}, map[[2]string]bool{}
	}
	c.answers++
	runs := c.contexts[r.Context]
	if runs == nil {
		runs = map[string]bool{}
		c.contexts[r.Context] = runs
	}
	if r.Probe == model.ProbeBaseline && !runs[r.Run] {
		runs[r.Run] = true
	}
	c.candidates[[2]string{r.Context, r.Candidate}] = true
}

// Describe is the Study of info as read with runs, the rows counted by c.
func Describe(ctx context.Context, st *store.Store, info store.StudyInfo, runs Runs, c *Counter) (model.Study, error) {
	s := model.Study{Dataset: info.Dataset, Judge: info.Judge, BankHash: info.BankHash, Bank: info.BankName,
		PlannedRuns: info.PlannedRuns, Runs: runs.String(), Answers: c.answers, Contexts: len(c.contexts),
		Candidates: len(c.candidates), Imputed: -1, Generation: info.Generation}
	failed, err := st.FailedRuns(ctx, info.Dataset, info.Judge, info.BankHash)
	if err != nil {
		return s, err
	}
	keep := runFilter(info, runs)
	for run, n := range failed {
		if keep(run) {
			s.Failures += n
		}
	}
	s.RunsPerContext = c.runSpan()
	j, err := st.Judge(ctx, info.Judge)
	if err != nil {
		return s, err
	}
	s.Backend, s.Model, s.Params = j.Backend, j.Model, j.Params
	if m, ok := j.Params["mode"].(string); ok {
		s.Mode = m
	}
	if info.BankHash == "" {
		return s, nil
	}
	s.Scale, err = Scale(ctx, st, info)
	return s, err
}

// Scale is the score scale of the study's bank for its dataset's
// task ("" when the bank has no prompt for it).
func Scale(ctx context.Context, st *store.Store, info store.StudyInfo) (string, error) {
	snap, err := st.Bank(ctx, info.BankHash)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	b, err := banks.Parse([]byte(snap.Text), "workspace bank "+model.ShortHash(info.BankHash))
	if err != nil {
		return "", err
	}
	ds, err := st.Datasets(ctx)
	if err != nil {
		return "", err
	}
	for _, d := range ds {
		if t, ok := b.Tasks[d.Task]; ok && d.Name == info.Dataset {
			return t.Scale.Range(), nil
		}
	}
	return "", nil
}

// Of is s as a fit report states it: the contexts and candidates the fit
// used (labelled, after skipping) and the cells it imputed.
func Of(s model.Study, rep *calib.Report) *model.Study {
	s.Contexts, s.Candidates, s.Imputed = rep.NContexts, rep.NCandidates, 0
	for _, n := range rep.Imputed {
		s.Imputed += n
	}
	return &s
}

// Sample keeps the rows of the contexts in keep (a diagnostic's sample)
// and counts the Study again from them.
func (d *Data) Sample(keep []string) {
	in := make(map[string]bool, len(keep))
	for _, c := range keep {
		in[c] = true
	}
	kept := d.Rows[:0]
	var c Counter
	for _, r := range d.Rows {
		if in[r.Context] {
			kept = append(kept, r)
			c.Add(&r)
		}
	}
	d.Rows = kept
	s := &d.Study
	s.Answers, s.Contexts, s.Candidates = c.answers, len(c.contexts), len(c.candidates)
	s.RunsPerContext = c.runSpan()
}

// runSpan is the least and the most baseline runs a context has.
func (c *Counter) runSpan() [2]int {
	var out [2]int
	first := true
	for _, r := range c.contexts {
		n := len(r)
		if first || n < out[0] {
			out[0] = n
		}
		if first || n > out[1] {
			out[1] = n
		}
		first = false
	}
	return out
}

// ReadRuns reads the study of judge on dataset under bankHash in its
// first runs runs, keeping the contexts in sample (nil: all): what a diagnostic
// (prism screen, prism diagnose) analyses of the requests it planned.
func ReadRuns(ctx context.Context, st *store.Store, dataset, judge, bankHash string, runs int, sample []string) (*Data, error) {
	info, _, err := Pick(ctx, st, dataset, judge, bankHash)
	if err != nil {
		return nil, err
	}
	d, err := Read(ctx, st, info, Runs{N: runs})
	if err != nil {
		return nil, err
	}
	if sample != nil {
		d.Sample(sample)
	}
	return d, nil
}
