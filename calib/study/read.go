package study

import (
	"context"
	"errors"
	"fmt"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

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
	// Comparisons are the dataset's comparison labels (Comparisons), nil
	// when it keeps none: a pairwise analysis counts them
	// (calib.Options.Comparisons).
	Comparisons []model.Comparison
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
	if d.Comparisons, err = Comparisons(ctx, st, info.Dataset); err != nil {
		return nil, err
	}
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
	return described(ctx, st, info, runs, &c, labels, err)
}

// ScanCandidates is Scan a candidate at a time (store.ScanCandidates),
// given what a plan of the study already read: read, its decode of the
// study's answers (engine.Plan.StudyRead), and d, the dataset as stored
// (DatasetAt), so that neither is read again when read holds the study.
// fn is given each candidate's rows kept, in Scan's order; a candidate
// with none is skipped.
func ScanCandidates(ctx context.Context, st *store.Store, info store.StudyInfo, runs Runs, read *store.StudyRead, d *model.Dataset, fn func(*model.CandidateScores) error) (model.Study, []model.Label, error) {
	keep := runFilter(info, runs)
	var c Counter
	// A condition's run is kept or not once: 0 not yet seen, 1 kept,
	// −1 not.
	var kept []int8
	var part model.CandidateScores
	if d != nil {
		c.reserve(d)
	}
	labels, err := st.ScanCandidates(ctx, info.Dataset, info.Judge, info.BankHash, read, d, func(cs *model.CandidateScores) error {
		if len(kept) < len(cs.Conds) {
			kept = append(kept, make([]int8, len(cs.Conds)-len(kept))...)
		}
		all := true
		for _, k := range cs.Cond {
			if kept[k] == 0 {
				kept[k] = -1
				if keep(cs.Conds[k].Run) {
					kept[k] = 1
				}
			}
			all = all && kept[k] > 0
		}
		if !all {
			part = model.CandidateScores{Context: cs.Context, Candidate: cs.Candidate, Conds: cs.Conds, Cond: part.Cond[:0], Score: part.Score[:0]}
			for i, k := range cs.Cond {
				if kept[k] > 0 {
					part.Cond, part.Score = append(part.Cond, k), append(part.Score, cs.Score[i])
				}
			}
			if len(part.Cond) == 0 {
				return nil
			}
			cs = &part
		}
		c.AddCandidate(cs)
		return fn(cs)
	})
	return described(ctx, st, info, runs, &c, labels, err)
}

// described is a scan's Study and labels, or its error; a scan that kept
// no row is ErrNotFound.
func described(ctx context.Context, st *store.Store, info store.StudyInfo, runs Runs, c *Counter, labels []model.Label, err error) (model.Study, []model.Label, error) {
	if err != nil {
		return model.Study{}, nil, err
	}
	if c.answers == 0 {
		return model.Study{}, nil, fmt.Errorf("judge %q has no answers on dataset %q in runs %s: %w", info.Judge, info.Dataset, runs, store.ErrNotFound)
	}
	s, err := Describe(ctx, st, info, runs, c)
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
	// The last row's candidate and its context's runs: rows come a
	// candidate at a time, so most rows need no map look-up.
	last     [2]string
	lastRuns map[string]bool
}

// Add counts one row.
func (c *Counter) Add(r *model.ScoreRow) {
	if c.contexts == nil {
		c.contexts, c.candidates = map[string]map[string]bool{}, map[[2]string]bool{}
	}
	c.answers++
	if c.lastRuns == nil || r.Candidate != c.last[1] || r.Context != c.last[0] {
		runs := c.contexts[r.Context]
		if runs == nil {
			runs = map[string]bool{}
			c.contexts[r.Context] = runs
		}
		c.last, c.lastRuns = [2]string{r.Context, r.Candidate}, runs
		c.candidates[c.last] = true
	}
	if r.Probe == model.ProbeBaseline && !c.lastRuns[r.Run] {
		c.lastRuns[r.Run] = true
	}
}

// reserve sizes c for the candidates of d.
func (c *Counter) reserve(d *model.Dataset) {
	if c.contexts == nil {
		n := 0
		for _, x := range d.Contexts {
			n += len(x.Candidates)
		}
		c.contexts, c.candidates = make(map[string]map[string]bool, len(d.Contexts)), make(map[[2]string]bool, n)
	}
}

// AddCandidate counts one candidate's rows, as Add counts each.
func (c *Counter) AddCandidate(cs *model.CandidateScores) {
	for i, k := range cs.Cond {
		if i == 0 || cs.Conds[k].Probe == model.ProbeBaseline {
			r := cs.Row(i)
			c.Add(&r)
		} else {
			c.answers++
		}
	}
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
