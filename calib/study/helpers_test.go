package study

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// tinyDataset is 2 contexts × 2 candidates with human scores.
func tinyDataset(name string) *model.Dataset {
	d := &model.Dataset{Name: name, Format: "jsonl", Task: model.TaskNewsSummary, Metric: model.MetricSpearman}
	for c := range 2 {
		ctx := model.Context{ID: fmt.Sprintf("doc%d", c), Source: fmt.Sprintf("Article %d. The council voted 7 to 2 on Tuesday to build a bridge over the river.", c)}
		for k := range 2 {
			ctx.Candidates = append(ctx.Candidates, model.Candidate{ID: fmt.Sprintf("s%d", k),
				Text: fmt.Sprintf("Summary %d of article %d: the council approved a bridge.", k, c), Human: float64(k + c)})
		}
		d.Contexts = append(d.Contexts, ctx)
	}
	return d
}

// openStore opens a new workspace holding d.
func openStore(t testing.TB, d *model.Dataset) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ws.db")
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.PutDataset(context.Background(), d, false); err != nil {
		t.Fatal(err)
	}
	return st, path
}

// rubricSpec is an offline run of the built-in rubric name on d.
func rubricSpec(t testing.TB, d *model.Dataset, name string) engine.Spec {
	t.Helper()
	r, err := banks.BuiltinRubric(name)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Spec{Dataset: d, Rubric: r, RubricSource: "builtin:" + name, JudgeName: "offline",
		Config: judge.Defaults(), Repeats: 1, Limits: engine.Limits{Concurrency: 2}}
}

// tokenJudge reports fixed token counts on every answer.
type tokenJudge struct {
	inner         judge.Judge
	prompt, compl int
}

func (j *tokenJudge) Name() string { return "tokens" }
func (j *tokenJudge) Score(ctx context.Context, req banks.Request) (judge.Result, error) {
	res, err := j.inner.Score(ctx, req)
	res.PromptTokens, res.CompletionTokens = j.prompt, j.compl
	if len(res.Items) > 0 {
		err = nil
	}
	return res, err
}

// runSpec runs spec to the end on st with the offline judge, each answer
// reporting prompt and completion tokens.
func runSpec(t *testing.T, st *store.Store, spec engine.Spec, prompt, compl int) {
	t.Helper()
	ctx := context.Background()
	p, err := engine.NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	js, err := engine.PlanJudges(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := engine.Start(ctx, st, []judge.Judge{&tokenJudge{inner: js[0], prompt: prompt, compl: compl}}, p, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range r.Events() {
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
}
