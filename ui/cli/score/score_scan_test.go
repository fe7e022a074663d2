package score

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// prism score on a workspace folds the study's rows into the calibrator
// as they are read (scoreWorkspace.scan): the candidates scored and the
// study described equal Apply on the rows study.ReadRuns holds, for a
// calibrator of every attribute and one of a single attribute (rows it
// ignores), with and without --target.
func TestScoreWorkspaceScanEqualsApplyOfRows(t *testing.T) {
	f := scoreFixture(t)
	ctx := context.Background()
	st, err := clikit.OpenWorkspaceRO(ctx, f.ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ds, err := st.Datasets(ctx)
	if err != nil || len(ds) != 1 {
		t.Fatalf("datasets %v, %v", ds, err)
	}
	for _, file := range []string{f.wsCal, f.wsCalCov} {
		for _, target := range []string{"", "coherence"} {
			cal := clitest.ReadCalibrator(t, file)
			s := &scoreWorkspace{cal: cal, calFile: file, target: target, source: "the study",
				opts: calib.ApplyOptions{Bootstrap: 30, Seed: 7}}
			judge, bank, runs := cal.Judge.Name, cal.Bank.Hash, cal.Judge.Runs
			plan := scanPlan(t, st, ds[0].Name, cal)
			if plan.BankHash != bank || plan.Spec.Repeats != runs || !plan.StudyRead().Holds(ds[0].Name, judge, bank) {
				t.Fatalf("the plan's bank %s, runs %d: want %s, %d and the study read whole", plan.BankHash, plan.Spec.Repeats, bank, runs)
			}
			out := s.scan(ctx, st, scanInput{dataset: plan.Spec.Dataset, bankHash: plan.BankHash, repeats: plan.Spec.Repeats, read: plan.StudyRead(), judge: judge})
			if out.err != nil {
				t.Fatal(out.err)
			}
			got := out.res
			data, err := study.ReadRuns(ctx, st, ds[0].Name, judge, bank, runs, nil)
			if err == nil {
				err = data.Retarget(ctx, st, target)
			}
			if err != nil {
				t.Fatal(err)
			}
			want, err := cal.Apply(data.Rows, data.Labels, s.applyOptions())
			if err != nil {
				t.Fatal(err)
			}
			if g, w := scoredText(got), scoredText(want); len(got.Rows) == 0 || g != w {
				t.Errorf("%s, target %q: scored while read:\n%s\nApply of the rows:\n%s", file, target, g, w)
			}
			if !reflect.DeepEqual(*out.study, data.Study) {
				t.Errorf("%s, target %q: study %+v, want %+v", file, target, *out.study, data.Study)
			}
		}
	}
}

// scanPlan is the plan prism score makes of cal's study on dataset
// (engine.NewRunPlan: the estimate, which decodes the study's answers
// that scan then reads).
func scanPlan(t *testing.T, st *store.Store, dataset string, cal *calib.Calibrator) *engine.Plan {
	t.Helper()
	ctx := context.Background()
	b, err := cal.ParsedBank()
	if err != nil {
		t.Fatal(err)
	}
	d, rev, err := st.DatasetAt(ctx, dataset)
	if err != nil {
		t.Fatal(err)
	}
	cfg := study.ConfigOf(cal.Judge)
	plan, err := engine.NewRunPlan(ctx, st, engine.Spec{Dataset: d, DatasetRev: rev, Bank: b, Task: cal.Bank.Task, Config: cfg,
		Repeats: cfg.Repeats, Probes: cal.Probes(), JudgeName: cal.Judge.Name, KeepRead: true})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// scoredText spells every field of s (NaN as NaN, each float exactly).
func scoredText(s *calib.Scored) string {
	c := *s
	var tr calib.Transfer
	if c.Transfer != nil {
		tr = *c.Transfer
	}
	c.Transfer = nil
	return fmt.Sprintf("%+v\ntransfer %v %+v", c, s.Transfer != nil, tr)
}
