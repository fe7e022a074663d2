package banks

import (
	"testing"

	"github.com/prism-eval/prism/model"
)

// Lengths counts what RenderAll renders: for every built-in bank, every
// task it has and every condition, on contexts with and without extras
// and an empty candidate, the lengths of the two messages.
func TestLengthsAreRenderedLengths(t *testing.T) {
	ctxs := []model.Context{
		{ID: "c1", Source: "An article. It has two sentences.", Extra: map[string]string{"url": "http://x", "history": "A: hi\nB: hello"},
			Candidates: []model.Candidate{{ID: "a", Text: "A summary — with ünïcode."}, {ID: "b", Text: ""}}},
		{ID: "c2", Candidates: []model.Candidate{{ID: "x", Text: "No source at all."}}},
	}
	n := 0
	for _, b := range Builtins() {
		conds := b.Conditions()
		for task := range b.Tasks {
			r, err := b.Renderer(task)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range ctxs {
				for _, cand := range c.Candidates {
					reqs, err := r.RenderAll(c, cand, conds)
					if err != nil {
						t.Fatal(err)
					}
					lens, err := r.Lengths(c, cand, conds, nil)
					if err != nil {
						t.Fatal(err)
					}
					for i, req := range reqs {
						if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" {
							t.Fatalf("%s/%s: messages %+v, want system then user", b.Name, task, req.Messages)
						}
						want := Lengths{len(req.Messages[0].Content), len(req.Messages[1].Content)}
						if lens[i] != want {
							t.Fatalf("%s/%s %s %d on %s/%s: Lengths %+v, rendered %+v", b.Name, task, conds[i].Probe, conds[i].Wording, c.ID, cand.ID, lens[i], want)
						}
						n++
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("nothing compared")
	}
	// A condition the bank does not have is refused, as RenderAll refuses it.
	b, _ := Builtin("quality")
	r, _ := b.Renderer(model.TaskNewsSummary)
	if _, err := r.Lengths(ctxs[0], ctxs[0].Candidates[0], []Condition{{Probe: "nope"}}, nil); err == nil {
		t.Error("Lengths of an unknown condition: no error")
	}
}
