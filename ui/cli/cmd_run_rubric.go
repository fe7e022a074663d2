package cli

import (
	"context"
	"fmt"
	"io"

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
		sp.Dataset.Name, sp.Dataset.NumCandidates(), r.Name, r.Kind, len(r.Criteria), model.ShortHash(p.BankHash), sp.Repeats, sp.JudgeName)
	if sp.Config.Backend == judge.BackendOffline || sp.Config.Backend == "" {
		fmt.Fprintln(w, "judge: offline (simulator): a deterministic text-feature scorer, not an LLM")
	}
	cands := max(1, sp.Dataset.NumCandidates())
	b := p.CandidateBudget()
	fmt.Fprintf(w, "budget per candidate: %d call(s) (%s), ≈ %s input + %s output tokens\n", b.Calls, b.How, humanCount(b.InTokens), humanCount(b.OutTokens))
	fmt.Fprintf(w, "ratings: %d in all (%d candidates × %d criteria × %d run(s)), %d answered, %d from cache; %d request(s) to send, %d call(s)\n",
		e.Requests, cands, len(r.Criteria), sp.Repeats, e.Answered, e.CacheHits, e.Send, e.Calls)
	printCostLine(w, e, sp.Limits)
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
