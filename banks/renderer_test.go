package banks

import (
	"reflect"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

// TestRendererMatchesRender: for every built-in bank, task and condition,
// the Renderer produces exactly the request Bank.Render does, single and
// batched.
func TestRendererMatchesRender(t *testing.T) {
	for _, b := range Builtins() {
		for _, task := range b.TaskNames() {
			r, err := b.Renderer(task)
			if err != nil {
				t.Fatal(err)
			}
			if r.Hash() != b.Hash() {
				t.Errorf("%s: Renderer hash differs", b.Name)
			}
			ctx, _ := Sample(task)
			for _, c := range b.Conditions() {
				want, err1 := b.Render(task, ctx, ctx.Candidates[1], c)
				got, err2 := r.Render(ctx, ctx.Candidates[1], c)
				if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s %s %s/%d: Renderer gave %+v (%v), Render %+v (%v)", b.Name, task, c.Probe, c.Wording, got, err2, want, err1)
				}
				wantB, err1 := b.RenderBatch(task, ctx, ctx.Candidates, c)
				gotB, err2 := r.RenderBatch(ctx, ctx.Candidates, c)
				if err1 != nil || err2 != nil || !reflect.DeepEqual(gotB, wantB) {
					t.Fatalf("%s %s %s/%d: batched requests differ", b.Name, task, c.Probe, c.Wording)
				}
			}
			// RenderAll: the requests of Render, condition by condition.
			all, err := r.RenderAll(ctx, ctx.Candidates[1], b.Conditions())
			if err != nil || len(all) != len(b.Conditions()) {
				t.Fatalf("%s %s: RenderAll: %d requests, %v", b.Name, task, len(all), err)
			}
			for i, c := range b.Conditions() {
				want, _ := b.Render(task, ctx, ctx.Candidates[1], c)
				if !reflect.DeepEqual(all[i], want) {
					t.Fatalf("%s %s %s/%d: RenderAll gave %+v, Render %+v", b.Name, task, c.Probe, c.Wording, all[i], want)
				}
			}
			bad := append(b.Conditions(), Condition{Probe: "nope:+", Instruction: "x"})
			if _, err := r.RenderAll(ctx, ctx.Candidates[1], bad); err == nil {
				t.Fatalf("%s %s: RenderAll took a condition not in the bank", b.Name, task)
			}
		}
	}
}

func TestRendererIsFrozen(t *testing.T) {
	b, _ := Builtin("quality")
	r, err := b.Renderer(model.TaskNewsSummary)
	if err != nil {
		t.Fatal(err)
	}
	cond, _ := b.Condition("coverage:+", 0)
	b.Attributes[2].Clause = "something else"
	b.Tasks[model.TaskNewsSummary] = Task{}
	ctx, _ := Sample(model.TaskNewsSummary)
	req, err := r.Render(ctx, ctx.Candidates[0], cond)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(req.Messages[0].Content, "important content") || !strings.HasPrefix(req.Messages[1].Content, "Source article:") {
		t.Errorf("edits after Renderer changed its output: %+v", req.Messages)
	}
	req.Scale.Anchors[0].Label = "edited by a caller"
	again, _ := r.Render(ctx, ctx.Candidates[0], cond)
	if again.Scale.Anchors[0].Label != "very poor" {
		t.Errorf("editing a request's scale changed the Renderer: %q", again.Scale.Anchors[0].Label)
	}
	if _, err := r.Render(ctx, ctx.Candidates[0], Condition{Probe: "coverage:+", Wording: 5}); err == nil {
		t.Error("unknown wording accepted")
	}
	if _, err := r.Render(ctx, ctx.Candidates[0], Condition{Probe: "coverage:+", Instruction: "x"}); err == nil {
		t.Error("altered instruction accepted")
	}
	if _, err := b.Renderer("story"); err == nil || !strings.Contains(err.Error(), `no task "story"`) {
		t.Errorf("Renderer(story) error %v", err)
	}
}
