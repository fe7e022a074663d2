package analysis

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/calib/agree"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// listFlag is a repeatable flag: every use adds a value.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// agreeJudge is one judge's scores as agree reads them: one score per
// candidate (the baseline averaged over repeats), where it came from, and
// the study that names it (workspace judges) or the file (files).
type agreeJudge struct {
	name   string
	scores map[agree.Key]float64
	study  *model.Study
	file   string
	scale  string // the bank's score scale, MIN–MAX ("" unknown)
}

// meanScores averages what add collects per candidate: the baseline over
// its repeats, as the fit's s0 is.
type meanScores struct {
	sum map[agree.Key]float64
	n   map[agree.Key]int
}

func (m *meanScores) add(k agree.Key, v float64) {
	if m.sum == nil {
		m.sum, m.n = map[agree.Key]float64{}, map[agree.Key]int{}
	}
	m.sum[k] += v
	m.n[k]++
}

func (m *meanScores) means() map[agree.Key]float64 {
	out := make(map[agree.Key]float64, len(m.sum))
	for k, s := range m.sum {
		out[k] = s / float64(m.n[k])
	}
	return out
}

// readAgreeScores reads one --scores file: a CSV with a header naming at
// least context, candidate and score; with a probe column only its
// baseline rows count; with a judge column each judge in it is one judge,
// else the file is one judge named by its base name without extension.
// Empty scores are missing. Errors name the file, line and field.
func readAgreeScores(path string) ([]agreeJudge, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	col, err := clikit.ReadCSVHeader(r, path, []string{"context", "candidate", "score"}, func(string, []string) string {
		return "a judge's scores need context, candidate, score; optional judge, probe"
	})
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	byJudge := map[string]*meanScores{}
	var order []string
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		cell := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		if _, ok := col["probe"]; ok && cell("probe") != model.ProbeBaseline {
			continue
		}
		name := base
		if _, ok := col["judge"]; ok {
			if name = cell("judge"); name == "" {
				return nil, fmt.Errorf("%s: line %d: field \"judge\" is empty", path, line)
			}
		}
		k := agree.Key{Context: cell("context"), Candidate: cell("candidate")}
		if k.Context == "" || k.Candidate == "" {
			return nil, fmt.Errorf("%s: line %d: field \"context\"/\"candidate\": empty id", path, line)
		}
		s := cell("score")
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: line %d: field \"score\": %q is not a finite number", path, line, s)
		}
		if byJudge[name] == nil {
			byJudge[name] = &meanScores{}
			order = append(order, name)
		}
		byJudge[name].add(k, v)
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("%s: no scores (baseline rows with a score)", path)
	}
	out := make([]agreeJudge, len(order))
	for i, name := range order {
		out[i] = agreeJudge{name: name, scores: byJudge[name].means(), file: path}
	}
	return out, nil
}

// workspaceAgreeJudges reads each judge's study on dataset with
// agree.ReadStored, the read the TUI's agreement makes too: the baseline
// answers averaged over the runs read, and the Study. A judge without
// probes is an imported study without a bank; study.Pick takes it as any
// other.
func workspaceAgreeJudges(ctx context.Context, st *store.Store, wf clikit.WorkspaceFlags, dataset string, judges []string, bankHash string, runs study.Runs, stderr io.Writer) ([]agreeJudge, []model.Label, error) {
	var out []agreeJudge
	var labels []model.Label
	for _, name := range judges {
		s, err := agree.ReadStored(ctx, st, dataset, name, bankHash, runs)
		if err != nil {
			return nil, nil, err
		}
		if s.Note != "" && stderr != nil {
			fmt.Fprintf(stderr, "%s: judge %s: %s\n", wf.Name(), name, s.Note)
		}
		warnUnbalanced(stderr, wf.Name(), &s.Study)
		out = append(out, agreeJudge{name: name, scores: s.Scores, study: &s.Study, scale: s.Study.Scale})
		labels = s.Labels
	}
	return out, labels, nil
}

// datasetJudges are the judges with a (non-rubric) study on dataset, in
// name order: prism agree's default.
func datasetJudges(ctx context.Context, st *store.Store, dataset string) ([]string, error) {
	all, err := st.Studies(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range all {
		if s.Dataset == dataset && !s.Rubric && !slices.Contains(out, s.Judge) {
			out = append(out, s.Judge)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no judge has answers on dataset %q: %w", st.Path(), dataset, store.ErrNotFound)
	}
	slices.Sort(out)
	return out, nil
}

// parseScale reads a MIN–MAX scale ("1-5", "1–10", "0-1").
func parseScale(s string) (lo, hi float64, err error) {
	a, b, ok := strings.Cut(strings.ReplaceAll(s, "–", "-"), "-")
	if ok {
		if lo, err = strconv.ParseFloat(strings.TrimSpace(a), 64); err == nil {
			hi, err = strconv.ParseFloat(strings.TrimSpace(b), 64)
		}
	}
	if !ok || err != nil || !(lo < hi) {
		return 0, 0, errors.New("want MIN-MAX with MIN < MAX, e.g. 1-5")
	}
	return lo, hi, nil
}

// onScale reports whether every value lies within [lo, hi].
func onScale(lo, hi float64, vals func(yield func(float64) bool)) bool {
	for v := range vals {
		if v < lo || v > hi {
			return false
		}
	}
	return true
}
