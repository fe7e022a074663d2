package engine

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/openai"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// Rubric studies (docs/rubrics.md, "Acquisition"): a rubric's requests go
// through the same plan, cache, leases, limits and store as a bank's. Each
// stored request is one criterion's rating of one candidate, under the
// probe model.RubricProbe(rubric, criterion) and the rubric's hash:
//
//   - SAJA: one call per candidate (and run) rates every criterion; the
//     call's Result.Items give one stored score per criterion. A criterion
//     missing from a parsed reply, or out of its scale, is stored as an
//     answer without a score (a missing cell, counted in
//     Progress.Missing), not as a failed request; a reply with no ratings
//     at all fails every criterion, which a rerun sends again.
//   - G-Eval: one request per criterion per candidate (and run), whose
//     score is the probability-weighted mean rating in expected mode, else
//     the mean of Spec.Samples sampled ratings (at temperature 1, top_p 1).
//
// The request key of a rating hashes its messages under the judge's key
// parameters plus the rubric's ("rubric": kind, and for G-Eval "samples"
// and the sampling parameters it is sent with), then, for SAJA, the
// criterion's name: every criterion of a SAJA call has its own key, so an
// identical call answered elsewhere fills each criterion from the cache.

// DefaultGEvalSamples is G-Eval's N when Spec.Samples is 0: the 20
// samples of G-Eval's release.
const DefaultGEvalSamples = 20

// RubricSourcePrefix opens the stored snapshot source of a rubric (the
// banks table holds rubric snapshots beside bank snapshots): "rubric:" +
// Spec.RubricSource. store.IsRubricSource tells them apart.
const RubricSourcePrefix = store.RubricSourcePrefix

// samples is the number of calls one request makes: Spec.Samples for a
// G-Eval request in integer mode, else 1.
func (p *Plan) samples() int {
	if p.rubric == nil || p.Spec.Rubric.Kind != banks.RubricGEval || p.Spec.Config.Mode == judge.ModeExpected {
		return 1
	}
	if p.Spec.Samples > 0 {
		return p.Spec.Samples
	}
	return DefaultGEvalSamples
}

// Samples is the number of judge calls one request of the plan makes.
func (p *Plan) Samples() int { return p.samples() }

// IsRubric reports whether the plan is a rubric study's.
func (p *Plan) IsRubric() bool { return p.rubric != nil }

// SendConfig is the judge configuration the plan's requests are sent
// with: the spec's, except for G-Eval in integer mode, which samples
// Samples ratings per request at temperature 1 and top_p 1, G-Eval's
// setting, whatever the configuration says (a bank study's judge is often
// at temperature 0, which would make the N samples one). The stored judge
// row keeps the spec's configuration: rubric scores are stored under the
// same judge as its bank scores.
func (p *Plan) SendConfig() judge.Config {
	cfg := p.Spec.Config
	if p.rubric != nil && p.Spec.Rubric.Kind == banks.RubricGEval && cfg.Mode != judge.ModeExpected {
		one, top := 1.0, 1.0
		cfg.Temperature, cfg.TopP = &one, &top
		cfg.Repeats = p.samples()
	}
	return cfg
}

// rubricKeyParams are the key parameters of a rubric plan's requests.
func (p *Plan) rubricKeyParams() map[string]any {
	cfg := p.SendConfig()
	params := KeyParams(cfg)
	params["rubric"] = p.Spec.Rubric.Kind
	if p.Spec.Rubric.Kind == banks.RubricGEval {
		params["samples"] = p.samples()
	}
	return params
}

// PlanJudges builds the judges a plan's run sends with: NewJudges over
// SendConfig and the spec's repeats, except that a G-Eval request in
// integer mode draws Samples ratings in its one Score call.
func PlanJudges(p *Plan, lim *Limiter, opts ...openai.Option) ([]judge.Judge, error) {
	return newJudges(p.SendConfig(), p.Spec.Repeats, p.samples(), lim, opts...)
}

// newRubricPlan is NewPlan for a rubric study.
func newRubricPlan(ctx context.Context, st *store.Store, spec Spec, task string) (*Plan, error) {
	if spec.Probes != nil {
		return nil, errors.New("engine: probes: a rubric study asks every criterion")
	}
	if spec.Samples < 0 {
		return nil, fmt.Errorf("engine: samples: %d, want at least 1", spec.Samples)
	}
	rr, err := spec.Rubric.Renderer(task)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	crits := spec.Rubric.CriterionNames()
	total := int64(spec.Dataset.NumCandidates()) * int64(len(crits)) * int64(spec.Repeats)
	if total > MaxPlanRequests {
		return nil, fmt.Errorf("engine: the study has %d ratings (%d candidates × %d criteria × %d runs), more than the %d one plan holds",
			total, spec.Dataset.NumCandidates(), len(crits), spec.Repeats, MaxPlanRequests)
	}
	rev := spec.DatasetRev
	if rev == 0 {
		rev, err = st.DatasetRevision(ctx, spec.Dataset.Name)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("engine: %w", err)
		}
	}
	p := &Plan{DatasetRev: rev, Spec: spec, BankHash: rr.Hash(), Judge: StoredJudge(spec), Cached: map[int]store.Response{}, rubric: rr}
	p.critProbes = make([]string, len(crits))
	for k, name := range crits {
		p.critProbes[k] = model.RubricProbe(spec.Rubric.Name, name)
	}
	if err := p.rubricItems(crits); err != nil {
		return nil, err
	}
	if err := p.resolve(ctx, st); err != nil {
		return nil, err
	}
	if err := p.checkSameParams(ctx, st); err != nil {
		return nil, err
	}
	return p, nil
}

// rubricItems makes the plan's items: each criterion of each candidate,
// every run; a SAJA call's criteria are items of its one request.
func (p *Plan) rubricItems(crits []string) error {
	spec, rr := p.Spec, p.rubric
	keyer, err := store.NewKeyer(p.Judge.Backend, spec.Config.Model, p.rubricKeyParams())
	if err != nil {
		return err
	}
	n := p.samples()
	saja := spec.Rubric.Kind == banks.RubricSAJA
	out := outputTokens(spec.Config)
	if saja {
		// {"name": 4, …}: about 4 tokens a criterion.
		out = 4*len(crits) + 4
		if spec.Config.MaxTokens > 0 {
			out = min(out, spec.Config.MaxTokens)
		}
	}
	msgs := make([]store.Message, 0, 3)
	add := func(ci, ki, crit int, req *banks.Request, lead bool, first int) {
		msgs = msgs[:0]
		for _, m := range req.Messages {
			msgs = append(msgs, store.Message(m))
		}
		if saja {
			msgs = append(msgs, store.Message{Role: "criterion", Content: crits[crit]})
		}
		key := keyer.Sum(msgs)
		in := 0
		o := 0
		if lead {
			in, o = n*EstimateTokens(req.Messages), n*out
		}
		for r := range spec.Repeats {
			l, part := len(p.Items), -1
			if saja {
				l, part = first+r, crit
			}
			p.Items = append(p.Items, Item{
				Run: int32(r), Context: int32(ci), Candidate: int32(ki), Condition: int16(crit), InTokens: int32(in), OutTokens: int32(o), Lead: int32(l), Part: int16(part),
				key: key,
			})
		}
	}
	for ci, c := range spec.Dataset.Contexts {
		for ki, cand := range c.Candidates {
			reqs := rr.Render(c, cand)
			if saja {
				// The lead items (criterion 0, one per run) come first, so
				// criterion k of run r is at first + k·Repeats + r.
				first := len(p.Items)
				for k := range crits {
					add(ci, ki, k, &reqs[0], k == 0, first)
				}
				continue
			}
			for k := range crits {
				add(ci, ki, k, &reqs[k], true, 0)
			}
		}
	}
	return nil
}

// checkSameParams refuses a rubric plan whose answered ratings were
// stored with other request parameters: G-Eval's N (--samples) and the
// sampling parameters are part of the key but not of the stored judge, so
// the same judge name with another N would otherwise count the old
// answers as this study's. One answered rating is checked: the parameters
// are the plan's, for every rating alike.
func (p *Plan) checkSameParams(ctx context.Context, st *store.Store) error {
	answered := -1
	j := 0
	for i := range p.Items {
		if j < len(p.Pending) && p.Pending[j] == i {
			j++
			continue
		}
		answered = i
		break
	}
	if answered < 0 {
		return nil
	}
	row := p.Row(&p.Items[answered])
	rows, err := st.RequestsByKey(ctx, row.Key, row.Run)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	for _, q := range rows {
		if q == row {
			return nil
		}
	}
	what := "other request parameters"
	if p.Spec.Rubric.Kind == banks.RubricGEval {
		what = "other sampling parameters (--samples, or the score mode)"
	}
	return fmt.Errorf("engine: judge %q already holds rubric %s ratings on dataset %q made with %s; one judge name holds one configuration: give this study another --judge name",
		p.Spec.JudgeName, p.Spec.Rubric.Name, p.Spec.Dataset.Name, what)
}

// rubricRequest renders a rubric plan's item.
func (p *Plan) rubricRequest(it *Item, c model.Context) (banks.Request, error) {
	cand := c.Candidates[it.Candidate]
	if p.Spec.Rubric.Kind == banks.RubricSAJA {
		return p.rubric.Render(c, cand)[0], nil
	}
	return p.rubric.RenderCriterion(c, cand, p.Spec.Rubric.Criteria[it.Condition].Name)
}

// cellResponse records what one call says about one of its items: the
// whole Score (Part -1, as toResponse) or the criterion's rating of a
// SAJA reply. Token counts go on the call's lead item only, so that the
// stored tokens add up to what was sent. A SAJA reply that rated some
// criterion is an answer for every criterion: a criterion it did not
// rate validly is an answer without a score (a missing cell).
func cellResponse(row store.Request, part int, lead bool, res judge.Result, err error) store.Response {
	if part < 0 {
		return toResponse(row, res, err)
	}
	parsed := false
	for _, x := range res.Items {
		if x.HasScore {
			parsed = true
			break
		}
	}
	if !parsed {
		resp := toResponse(row, res, err)
		if err == nil && resp.ErrKind == string(judge.KindUnparseable) {
			resp.Err = "no criterion rated in the reply"
		}
		if !lead {
			resp.PromptTokens, resp.CachedTokens, resp.CompletionTokens = 0, 0, 0
		}
		return resp
	}
	// toResponse with no error: the call's raw reply and token counts.
	resp := toResponse(row, judge.Result{Samples: res.Samples, Score: res.Score, HasScore: true,
		PromptTokens: res.PromptTokens, CachedPromptTokens: res.CachedPromptTokens, CompletionTokens: res.CompletionTokens, Latency: res.Latency}, nil)
	resp.Score = math.NaN()
	if part < len(res.Items) && res.Items[part].HasScore {
		resp.Score = res.Items[part].Score
	}
	if !lead {
		resp.PromptTokens, resp.CachedTokens, resp.CompletionTokens = 0, 0, 0
	}
	return resp
}

// snapshot is the stored snapshot of the plan's bank or rubric.
func (p *Plan) snapshot() (store.BankSnapshot, error) {
	if p.rubric != nil {
		r := p.Spec.Rubric
		text, err := r.Marshal()
		if err != nil {
			return store.BankSnapshot{}, err
		}
		return store.BankSnapshot{Hash: p.BankHash, Name: r.Name, Source: RubricSourcePrefix + p.Spec.RubricSource, Text: string(text)}, nil
	}
	text, err := p.Spec.Bank.Marshal()
	if err != nil {
		return store.BankSnapshot{}, err
	}
	return store.BankSnapshot{Hash: p.BankHash, Name: p.Spec.Bank.Name, Source: p.Spec.BankSource, Text: string(text)}, nil
}

// CandidateBudget is what one candidate of a study costs (docs/rubrics.md,
// "Budget"): the judge calls of all its runs, how they are made, and the
// estimated input and output tokens of all its requests, sent or not.
type CandidateBudget struct {
	Calls               int
	How                 string // e.g. "one call rates every criterion"
	InTokens, OutTokens int64
}

// CandidateBudget is the plan's cost per candidate, as prism run prints it
// before a rubric study: a SAJA call per run, or G-Eval's criteria × N
// samples (one logprob call each in expected mode).
func (p *Plan) CandidateBudget() CandidateBudget {
	sp := p.Spec
	b := CandidateBudget{Calls: sp.Repeats, How: "one call rates every criterion"}
	if r := sp.Rubric; r != nil && r.Kind == banks.RubricGEval {
		b.Calls *= len(r.Criteria) * p.Samples()
		b.How = fmt.Sprintf("%d criteria × %d sample(s)", len(r.Criteria), p.Samples())
		if sp.Config.Mode == judge.ModeExpected {
			b.How = fmt.Sprintf("%d criteria, each one call read by its logprobs", len(r.Criteria))
		} else if cfg := p.SendConfig(); cfg.Temperature != nil && cfg.TopP != nil {
			b.How += fmt.Sprintf(" at temperature %g, top_p %g", *cfg.Temperature, *cfg.TopP)
		}
	}
	for i := range p.Items {
		b.InTokens += int64(p.Items[i].InTokens)
		b.OutTokens += int64(p.Items[i].OutTokens)
	}
	n := int64(max(1, sp.Dataset.NumCandidates()))
	b.InTokens, b.OutTokens = (b.InTokens+n/2)/n, (b.OutTokens+n/2)/n
	return b
}
