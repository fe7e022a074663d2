package acquire

import (
	"context"
	"fmt"
	"io"

	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

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
	tw := clikit.NewTable(w)
	fmt.Fprintln(tw, "  CRITERION\tSCORED\tMISSING")
	for _, c := range p.Spec.Rubric.Criteria {
		pr := model.RubricProbe(p.Spec.Rubric.Name, c.Name)
		fmt.Fprintf(tw, "  %s\t%d\t%d\n", c.Name, scored[pr], missing[pr])
	}
	return tw.Flush()
}
