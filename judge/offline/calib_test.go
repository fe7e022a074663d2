package offline

import (
	"context"
	"strconv"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
)

// TestPRISMCorrectsTheSimulator runs the whole protocol on SummEval with
// the simulator as the judge: its documented bias must be real enough that
// PRISM's nested cross-validated Spearman beats Vanilla.
func TestPRISMCorrectsTheSimulator(t *testing.T) {
	d := loadSummEval(t)
	for _, bankName := range []string{"quality", "style8"} {
		bank, err := banks.Builtin(bankName)
		if err != nil {
			t.Fatal(err)
		}
		j := mustJudge(t, judge.ModeExpected, 1)
		var rows []model.ScoreRow
		var labels []model.Label
		for _, c := range d.Contexts {
			for _, cand := range c.Candidates {
				labels = append(labels, model.Label{Context: c.ID, Candidate: cand.ID, Human: cand.Human})
				base, err := bank.Render(model.TaskNewsSummary, c, cand, banks.Baseline)
				if err != nil {
					t.Fatal(err)
				}
				for _, cond := range bank.Conditions() {
					// The simulator reads the instruction, not the messages,
					// so one rendering per candidate serves every condition.
					req := base
					req.Probe, req.Wording, req.Instruction = cond.Probe, cond.Wording, cond.Instruction
					r, err := j.Score(context.Background(), req)
					if err != nil {
						t.Fatal(err)
					}
					rows = append(rows, model.ScoreRow{Context: c.ID, Candidate: cand.ID, Probe: cond.Probe, Wording: strconv.Itoa(cond.Wording), Score: r.Score})
				}
			}
		}
		opts := calib.DefaultOptions()
		opts.Bootstrap = 200
		rep, _, err := calib.Fit(context.Background(), rows, labels, opts)
		if err != nil {
			t.Fatal(err)
		}
		v, p := rep.Methods.Vanilla.Mean, rep.Methods.PRISM.Mean
		t.Logf("SummEval, offline simulator, bank %s: Vanilla %.3f, PRISM %.3f (gain %+.3f, 95%% CI %.3f…%.3f)",
			bankName, v, p, rep.Methods.PRISM.DiffVsVanilla.Mean, rep.Methods.PRISM.DiffVsVanilla.CI[0], rep.Methods.PRISM.DiffVsVanilla.CI[1])
		if !(p > v) {
			t.Errorf("bank %s: PRISM %.3f does not beat Vanilla %.3f", bankName, p, v)
		}
	}
}
