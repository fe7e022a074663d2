package agree

import (
	"context"
	"fmt"

	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// Stored is one stored judge's scores as an agreement reads them: its
// study (probed or not: imported scores without a bank are a study like
// any other), its baseline answers averaged per candidate over the runs
// read, and the dataset's labels. prism agree and the TUI both read a
// workspace judge with ReadStored, so their numbers agree.
type Stored struct {
	Judge  string
	Scores map[Key]float64
	Study  model.Study
	Labels []model.Label
	Note   string // which study study.Pick took when it had a choice, else ""
}

// ReadStored reads judge's study on dataset: study.Pick under bankHash
// ("" the judge's planned study), study.Read of runs, and the baseline
// answers averaged over repeats (BaselineMeans), as the fit's s0 is.
// Errors name the workspace, and the study once there is one.
func ReadStored(ctx context.Context, st *store.Store, dataset, judge, bankHash string, runs study.Runs) (*Stored, error) {
	info, note, err := study.Pick(ctx, st, dataset, judge, bankHash)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", st.Path(), err)
	}
	d, err := study.Read(ctx, st, info, runs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", study.Source(st.Path(), info), err)
	}
	scores := BaselineMeans(d.Rows)
	if len(scores) == 0 {
		return nil, fmt.Errorf("%s: no baseline answers", study.Source(st.Path(), info))
	}
	return &Stored{Judge: judge, Scores: scores, Study: d.Study, Labels: d.Labels, Note: note}, nil
}

// BaselineMeans is each candidate's baseline score averaged over its
// answered repeats; missing answers and probe answers are left out.
func BaselineMeans(rows []model.ScoreRow) map[Key]float64 {
	sum, n := map[Key]float64{}, map[Key]int{}
	for _, r := range rows {
		if r.Probe != model.ProbeBaseline || r.Missing {
			continue
		}
		k := Key{Context: r.Context, Candidate: r.Candidate}
		sum[k] += r.Score
		n[k]++
	}
	for k, s := range sum {
		sum[k] = s / float64(n[k])
	}
	return sum
}

// Measure lays out the judges' scores against labels (Build: the
// candidates every judge scored) and computes their agreement (Compute);
// the warnings are Build's.
func Measure(labels []model.Label, judges []string, scores []map[Key]float64, opts Options) (*Result, *Table, []string, error) {
	t, warnings, err := Build(labels, judges, scores)
	if err != nil {
		return nil, nil, warnings, err
	}
	res, err := Compute(t, opts)
	return res, t, warnings, err
}
