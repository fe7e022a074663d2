package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// printRubricEstimate is printEstimate for a rubric study: the study, the
// budget per candidate (calls and estimated tokens, which differ between
// methods: docs/rubrics.md) and the ratings to acquire.
func printRubricEstimate(w io.Writer, p *engine.Plan) {
	e := p.Estimate
	sp := p.Spec
	r := sp.Rubric
	fmt.Fprintf(w, "study: dataset %s (%d candidates) × rubric %s (%s, %d criteria, %s) × %d run(s) → judge %q\n",
		sp.Dataset.Name, sp.Dataset.NumCandidates(), r.Name, r.Kind, len(r.Criteria), short(p.BankHash), sp.Repeats, sp.JudgeName)
	if sp.Config.Backend == judge.BackendOffline || sp.Config.Backend == "" {
		fmt.Fprintln(w, "judge: offline (simulator): a deterministic text-feature scorer, not an LLM")
	}
	cands := max(1, sp.Dataset.NumCandidates())
	calls := sp.Repeats
	how := "one call rates every criterion"
	if r.Kind == banks.RubricGEval {
		calls *= len(r.Criteria) * p.Samples()
		how = fmt.Sprintf("%d criteria × %d sample(s)", len(r.Criteria), p.Samples())
		if sp.Config.Mode == judge.ModeExpected {
			how = fmt.Sprintf("%d criteria, each one call read by its logprobs", len(r.Criteria))
		} else if cfg := p.SendConfig(); cfg.Temperature != nil && cfg.TopP != nil {
			how += fmt.Sprintf(" at temperature %g, top_p %g", *cfg.Temperature, *cfg.TopP)
		}
	}
	in, out := perCandidateTokens(p)
	fmt.Fprintf(w, "budget per candidate: %d call(s) (%s), ≈ %s input + %s output tokens\n", calls, how, humanCount(in), humanCount(out))
	fmt.Fprintf(w, "ratings: %d in all (%d candidates × %d criteria × %d run(s)), %d answered, %d from cache; %d request(s) to send, %d call(s)\n",
		e.Requests, cands, len(r.Criteria), sp.Repeats, e.Answered, e.CacheHits, e.Send, e.Calls)
	fmt.Fprintf(w, "estimate: %s input + %s output tokens (≈4 characters per token)", humanCount(e.InputTokens), humanCount(e.OutputTokens))
	if e.Priced {
		fmt.Fprintf(w, ", cost $%.2f (price table: %s; no prompt caching assumed)", e.Cost, e.PriceModel)
	} else {
		fmt.Fprintf(w, ", cost unknown (no price for %q; pass --prices FILE)", e.PriceModel)
	}
	fmt.Fprintf(w, ", time ≈ %s at %s\n", e.Time.Round(time.Second), limitsText(sp.Limits))
}

// perCandidateTokens is the estimated tokens of the whole study per
// candidate, sent or not.
func perCandidateTokens(p *engine.Plan) (in, out int64) {
	for i := range p.Items {
		in += int64(p.Items[i].InTokens)
		out += int64(p.Items[i].OutTokens)
	}
	n := int64(max(1, p.Spec.Dataset.NumCandidates()))
	return (in + n/2) / n, (out + n/2) / n
}

// printRubricCounts prints what the workspace holds of a rubric study, per
// criterion: ratings stored with a score, and missing cells (answers
// without a valid rating).
func printRubricCounts(ctx context.Context, w io.Writer, st *store.Store, p *engine.Plan) error {
	rows, err := st.Scores(ctx, p.Spec.Dataset.Name, p.Spec.JudgeName, p.BankHash)
	if err != nil {
		return err
	}
	scored, missing := map[string]int{}, map[string]int{}
	for _, r := range rows {
		if r.Missing {
			missing[r.Probe]++
		} else {
			scored[r.Probe]++
		}
	}
	want := p.Spec.Dataset.NumCandidates() * p.Spec.Repeats
	fmt.Fprintf(w, "stored per criterion (of %d ratings each; probe rubric:%s/CRITERION):\n", want, p.Spec.Rubric.Name)
	tw := newTable(w)
	fmt.Fprintln(tw, "  CRITERION\tSCORED\tMISSING")
	for _, c := range p.Spec.Rubric.Criteria {
		pr := model.RubricProbe(p.Spec.Rubric.Name, c.Name)
		fmt.Fprintf(tw, "  %s\t%d\t%d\n", c.Name, scored[pr], missing[pr])
	}
	return tw.Flush()
}
