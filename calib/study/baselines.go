package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/prism-eval/prism/calib/forest"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// BaselineOptions choose how rubric ratings become calib.Baselines
// (docs/protocol.md §12).
type BaselineOptions struct {
	// Head is SAJA's head: calib.BaselineForest ("" means it) or
	// calib.BaselineRidge. G-Eval has no head.
	Head string
	// Forest configures the forest head (zero: forest.DefaultOptions).
	Forest forest.Options
}

// RubricRatings are one rubric's stored ratings of a judge on a dataset:
// the rows of probes rubric:NAME/CRITERION, with the rubric that says
// their kind and scales.
type RubricRatings struct {
	Hash   string        // the rubric snapshot's hash ("" when not stored: a built-in matched by name)
	Source string        // where the rubric came from, as stored
	Rubric *banks.Rubric // kind, criteria and scales
	Rows   []model.ScoreRow
	// Usage is the store's count of the study's answers and tokens (nil
	// for ratings read from a file).
	Usage []store.ProbeUsage
}

// BaselineName is the report key of a rubric's row: the rubric's name
// with '-' as '_' for SAJA ("saja-broad" → "saja_broad"), "geval" for a
// G-Eval rubric.
func BaselineName(r *banks.Rubric) string {
	if r.Kind == banks.RubricGEval {
		return "geval"
	}
	return strings.ReplaceAll(r.Name, "-", "_")
}

// StoredRubricRatings reads every rubric study of judge on dataset, in
// the order of the rubrics' names (then hashes).
func StoredRubricRatings(ctx context.Context, st *store.Store, dataset, judge string) ([]RubricRatings, error) {
	hashes, err := st.StudyHashes(ctx, dataset, judge)
	if err != nil {
		return nil, err
	}
	var out []RubricRatings
	for _, hash := range hashes {
		snap, err := st.Bank(ctx, hash)
		if errors.Is(err, store.ErrNotFound) || (err == nil && !snap.IsRubric()) {
			continue // a bank study, or imported scores without a snapshot
		}
		if err != nil {
			return nil, fmt.Errorf("rubric study %s: %w", model.ShortHash(hash), err)
		}
		r, err := banks.ParseRubric([]byte(snap.Text), "rubric snapshot "+model.ShortHash(hash))
		if err != nil {
			return nil, err
		}
		rows, err := st.Scores(ctx, dataset, judge, hash)
		if err != nil {
			return nil, err
		}
		use, err := st.Usage(ctx, dataset, judge, hash)
		if err != nil {
			return nil, err
		}
		if len(use) == 0 {
			continue // no answer yet
		}
		out = append(out, RubricRatings{Hash: hash, Source: strings.TrimPrefix(snap.Source, store.RubricSourcePrefix),
			Rubric: r, Rows: onlyRubric(rows, r.Name), Usage: use})
	}
	slices.SortStableFunc(out, func(a, b RubricRatings) int {
		if c := strings.Compare(a.Rubric.Name, b.Rubric.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Hash, b.Hash)
	})
	return out, nil
}

// RatingsFromRows finds rubric ratings among score rows read from a file
// (or imported): rows of probe rubric:NAME/CRITERION for a NAME that is a
// built-in rubric or one of extra (user rubric files). Rubric names with
// no such rubric are returned in unknown, sorted.
func RatingsFromRows(rows []model.ScoreRow, extra []*banks.Rubric) (out []RubricRatings, unknown []string) {
	names := map[string]bool{}
	for _, r := range rows {
		if name, _, ok := model.SplitRubricProbe(r.Probe); ok {
			names[name] = true
		}
	}
	for _, name := range slices.Sorted(mapKeys(names)) {
		var rub *banks.Rubric
		source := ""
		for _, e := range extra {
			if e.Name == name {
				rub, source = e, "file"
			}
		}
		if rub == nil {
			if b, err := banks.BuiltinRubric(name); err == nil {
				rub, source = b, "builtin:"+name
			}
		}
		if rub == nil {
			unknown = append(unknown, name)
			continue
		}
		out = append(out, RubricRatings{Rubric: rub, Source: source, Rows: onlyRubric(rows, name)})
	}
	return out, unknown
}

// RubricRatingsOf gathers every rubric rating of a fit's input: the
// judge's rubric studies on dataset in st (none when st is nil), then the
// rubric rows among rows whose rubric has no stored study, matched by name
// to extra or a built-in (RatingsFromRows). Rubric names with no rubric
// are returned in unknown.
func RubricRatingsOf(ctx context.Context, st *store.Store, dataset, judge string, rows []model.ScoreRow, extra []*banks.Rubric) (out []RubricRatings, unknown []string, err error) {
	covered := map[string]bool{}
	if st != nil {
		if out, err = StoredRubricRatings(ctx, st, dataset, judge); err != nil {
			return nil, nil, err
		}
		for _, rr := range out {
			covered[rr.Rubric.Name] = true
		}
	}
	var rest []model.ScoreRow
	for _, r := range rows {
		if name, _, ok := model.SplitRubricProbe(r.Probe); ok && !covered[name] {
			rest = append(rest, r)
		}
	}
	found, unknown := RatingsFromRows(rest, extra)
	return append(out, found...), unknown, nil
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// onlyRubric keeps the rows of rubric name's probes.
func onlyRubric(rows []model.ScoreRow, name string) []model.ScoreRow {
	var out []model.ScoreRow
	for _, r := range rows {
		if rn, _, ok := model.SplitRubricProbe(r.Probe); ok && rn == name {
			out = append(out, r)
		}
	}
	return out
}

// Baseline is the calib.Baseline of the ratings under name: each
// candidate's rating of each criterion is the mean of its scored rows
// (runs); a criterion with no scored row (a missing cell, a criterion
// the ratings never name) is NaN, which the fit counts and mean-imputes
// (docs/protocol.md §12). A rating of a criterion the rubric does not
// have is an error naming its line.
func (rr RubricRatings) Baseline(name string, opts BaselineOptions) (calib.Baseline, error) {
	r := rr.Rubric
	b := calib.Baseline{Name: name, Criteria: r.CriterionNames(), Scores: map[[2]string][]float64{}}
	switch {
	case r.Kind == banks.RubricGEval:
		b.Kind = calib.BaselineGEval
	case opts.Head == "" || opts.Head == calib.BaselineForest:
		b.Kind, b.Forest = calib.BaselineForest, opts.Forest
	case opts.Head == calib.BaselineRidge:
		b.Kind = calib.BaselineRidge
	default:
		return b, fmt.Errorf("rubric head %q: want %s or %s", opts.Head, calib.BaselineForest, calib.BaselineRidge)
	}
	col := map[string]int{}
	for i, c := range r.Criteria {
		col[c.Name] = i
		b.Scales = append(b.Scales, [2]float64{float64(c.Scale.Min), float64(c.Scale.Max)})
	}
	p := len(r.Criteria)
	sums := map[[2]string][]float64{}
	counts := map[[2]string][]int{}
	for _, row := range rr.Rows {
		_, crit, _ := model.SplitRubricProbe(row.Probe)
		c, ok := col[crit]
		if !ok {
			where := "rubric ratings"
			if row.Line > 0 {
				where = fmt.Sprintf("line %d", row.Line)
			}
			return b, fmt.Errorf("%s: probe %q: rubric %s (%s) has no criterion %q", where, row.Probe, r.Name, rr.Source, crit)
		}
		k := [2]string{row.Context, row.Candidate}
		if sums[k] == nil {
			sums[k], counts[k] = make([]float64, p), make([]int, p)
		}
		if !row.Scored() {
			continue
		}
		sums[k][c] += row.Score
		counts[k][c]++
	}
	for k, s := range sums {
		v := make([]float64, p)
		for c := range v {
			if n := counts[k][c]; n > 0 {
				v[c] = s[c] / float64(n)
			} else {
				v[c] = math.NaN()
			}
		}
		b.Scores[k] = v
	}
	b.CallsPerCandidate, b.TokensPerCandidate = rr.budget()
	return b, nil
}

// budget is the ratings' calls and tokens per candidate, from the store's
// usage (0, 0 without it): a SAJA call rates every criterion, so its calls
// are one criterion's answers; a G-Eval request is Samples calls.
func (rr RubricRatings) budget() (calls, tokens float64) {
	cands, answered := 0, 0
	var tok int64
	for _, u := range rr.Usage {
		if _, _, ok := model.SplitRubricProbe(u.Probe); !ok {
			continue
		}
		cands = max(cands, u.Candidates)
		tok += u.PromptTokens + u.CompletionTokens
		if rr.Rubric.Kind == banks.RubricSAJA {
			answered = max(answered, u.Answered)
		} else {
			answered += u.Answered * u.Samples
		}
	}
	if cands == 0 {
		return 0, 0
	}
	return float64(answered) / float64(cands), float64(tok) / float64(cands)
}

// Baselines turns every rubric's ratings into a calib.Baseline named by
// BaselineName; two rubrics of one name (e.g. the built-in G-Eval prompts
// and the official ones) are told apart by their hash's first 8 digits.
func Baselines(rrs []RubricRatings, opts BaselineOptions) ([]calib.Baseline, error) {
	count := map[string]int{}
	for _, rr := range rrs {
		count[BaselineName(rr.Rubric)]++
	}
	var out []calib.Baseline
	for _, rr := range rrs {
		name := BaselineName(rr.Rubric)
		if count[name] > 1 {
			name += "_" + model.ShortHash(rr.Hash)
		}
		b, err := rr.Baseline(name, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// MethodBudgets are the calls and tokens per candidate behind Vanilla
// (the baseline prompt's answers) and the fitted methods (the baseline's
// and the probes of columns'), from a bank study's usage. Tokens are 0
// when the answers carry no counts.
func MethodBudgets(usage []store.ProbeUsage, columns []string) map[string]calib.Budget {
	var cands int
	var van, fit calib.Budget
	want := map[string]bool{}
	for _, c := range columns {
		want[c] = true
	}
	for _, u := range usage {
		if u.Probe == model.ProbeBaseline {
			cands = u.Candidates
		}
	}
	if cands == 0 {
		return nil
	}
	for _, u := range usage {
		calls, tok := float64(u.Answered)/float64(cands), float64(u.PromptTokens+u.CompletionTokens)/float64(cands)
		if u.Probe == model.ProbeBaseline {
			van.CallsPerCandidate += calls
			van.TokensPerCandidate += tok
		}
		if u.Probe == model.ProbeBaseline || want[u.Probe] {
			fit.CallsPerCandidate += calls
			fit.TokensPerCandidate += tok
		}
	}
	out := map[string]calib.Budget{calib.Vanilla.String(): van}
	for m := calib.PRISM; m <= calib.Taylor; m++ {
		out[m.String()] = fit
	}
	return out
}
