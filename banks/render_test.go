package banks

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// TestRenderTable1 checks the quality bank against the recorded coverage
// probe of paper Table 1: the system message, the added instruction for
// each sign and the task text with its scale anchors and JSON format. The
// expected strings are copied from the paper (the extracted text drops the
// JSON braces and writes the en dash of "1–10" as "1--10"; both restored).
func TestRenderTable1(t *testing.T) {
	b, err := Builtin("quality")
	if err != nil {
		t.Fatal(err)
	}
	ctx := model.Context{ID: "d", Source: "Barcelona club president Josep Maria Bartomeu has insisted that the La Liga leaders have no plans to replace Luis Enrique and they’re ‘very happy’ with him."}
	cand := model.Candidate{ID: "c", Text: "Barca have no plans to replace Luis Enrique"}
	const (
		system = "You are evaluating machine-generated summaries of news articles."
		task   = "Rate the overall quality of the summary as a summary of the article—how well it selects what matters, holds together as a text, and would serve a reader in place of the article. " +
			"Use the whole 1–10 scale: 1–2 = very poor, 3–4 = poor, 5–6 = acceptable, 7–8 = good, 9–10 = excellent. " +
			`Respond with only a JSON object: {"score": <int 1–10>}.`
	)
	user := "Source article:\n" + ctx.Source + "\n\nSummary:\n" + cand.Text + "\n\nTask:\n" + task
	for _, tc := range []struct {
		probe, instruction string
	}{
		{"baseline", ""},
		{"coverage:+", "When you assign the score, weight how much of the article’s important content the summary includes more heavily than you normally would."},
		{"coverage:-", "When you assign the score, weight how much of the article’s important content the summary includes less heavily than you normally would."},
	} {
		cond, err := b.Condition(tc.probe, 0)
		if err != nil {
			t.Fatal(err)
		}
		req, err := b.Render(model.TaskNewsSummary, ctx, cand, cond)
		if err != nil {
			t.Fatal(err)
		}
		wantSys := system
		if tc.instruction != "" {
			wantSys += " " + tc.instruction
		}
		if req.Instruction != tc.instruction {
			t.Errorf("%s: Instruction = %q, want %q", tc.probe, req.Instruction, tc.instruction)
		}
		if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" {
			t.Fatalf("%s: messages %+v, want system then user", tc.probe, req.Messages)
		}
		if got := req.Messages[0].Content; got != wantSys {
			t.Errorf("%s: system\n got %q\nwant %q", tc.probe, got, wantSys)
		}
		if got := req.Messages[1].Content; got != user {
			t.Errorf("%s: user\n got %q\nwant %q", tc.probe, got, user)
		}
	}
}

// TestRenderGolden renders every built-in bank, for each of its tasks, on
// the sample context under a baseline, the first attribute's first + and
// − wording, the first neutral clause, the first context probe, and a
// batched baseline. Run with -update to rewrite the files after an
// intended wording change, and review the diff.
func TestRenderGolden(t *testing.T) {
	for _, b := range Builtins() {
		for _, task := range b.TaskNames() {
			ctx, err := Sample(task)
			if err != nil {
				t.Fatal(err)
			}
			var conds []Condition
			conds = append(conds, Baseline)
			a := b.Attributes[0]
			for _, p := range []string{PlusProbe(a.Name), MinusProbe(a.Name), NeutralProbe(b.Neutrals[0].Name)} {
				c, err := b.Condition(p, 0)
				if err != nil {
					t.Fatal(err)
				}
				conds = append(conds, c)
			}
			if len(b.ContextProbes) > 0 {
				c, err := b.Condition(ContextProbeName(b.ContextProbes[0].Name), 0)
				if err != nil {
					t.Fatal(err)
				}
				conds = append(conds, c)
			}
			var out strings.Builder
			fmt.Fprintf(&out, "bank %s, hash %s, task %s, context %s, candidate %s\n", b.Name, b.Hash(), task, ctx.ID, ctx.Candidates[0].ID)
			for _, c := range conds {
				req, err := b.Render(task, ctx, ctx.Candidates[0], c)
				if err != nil {
					t.Fatal(err)
				}
				writeRequest(&out, req)
			}
			req, err := b.RenderBatch(task, ctx, ctx.Candidates, Baseline)
			if err != nil {
				t.Fatal(err)
			}
			writeRequest(&out, req)
			checkGolden(t, filepath.Join("testdata", "golden", b.Name+"_"+task+".txt"), out.String())
		}
	}
}

func writeRequest(w *strings.Builder, r Request) {
	fmt.Fprintf(w, "\n######## probe %s, wording %d", r.Probe, r.Wording)
	if len(r.BatchIDs) > 0 {
		fmt.Fprintf(w, ", batch %s", strings.Join(r.BatchIDs, ","))
	}
	w.WriteString("\n")
	for _, m := range r.Messages {
		fmt.Fprintf(w, "=== %s ===\n%s\n", m.Role, m.Content)
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./banks -run TestRenderGolden -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the rendering (run with -update after an intended change):\n%s", path, firstDiff(string(want), got))
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d\nwant %q\n got %q", i+1, w, g)
		}
	}
	return "(no line differs)"
}

func TestRenderFields(t *testing.T) {
	b, _ := Builtin("dialogue")
	ctx, _ := Sample(model.TaskDialogue)
	cond, err := b.Condition("question:-", 1)
	if err != nil {
		t.Fatal(err)
	}
	req, err := b.Render(model.TaskDialogue, ctx, ctx.Candidates[1], cond)
	if err != nil {
		t.Fatal(err)
	}
	want := "Let whether the response asks the other speaker a question count for less than usual in the score you give."
	switch {
	case req.BankHash != b.Hash():
		t.Errorf("BankHash %s, want %s", req.BankHash, b.Hash())
	case req.Probe != "question:-" || req.Wording != 1 || req.Instruction != want:
		t.Errorf("probe %q wording %d instruction %q", req.Probe, req.Wording, req.Instruction)
	case req.ContextID != ctx.ID || req.CandidateID != "r2":
		t.Errorf("ids %q/%q", req.ContextID, req.CandidateID)
	case req.Source != ctx.Source || req.CandidateText != "ok.":
		t.Errorf("texts %q/%q", req.Source, req.CandidateText)
	case req.Scale.Min != 1 || req.Scale.Max != 10 || len(req.Scale.Anchors) != 5:
		t.Errorf("scale %+v", req.Scale)
	case !strings.HasSuffix(req.Messages[0].Content, " "+want):
		t.Errorf("system %q does not end with the instruction", req.Messages[0].Content)
	case !strings.Contains(req.Messages[1].Content, "Fact:\n"+ctx.Extra["knowledge"]+"\n\nResponse:\nok."):
		t.Errorf("user message lacks the fact section before the response:\n%s", req.Messages[1].Content)
	case len(req.BatchIDs) != 0 || len(req.BatchLabels) != 0:
		t.Errorf("single request has batch fields %v %v", req.BatchIDs, req.BatchLabels)
	}

	// Without a source or the extra field, those sections are left out.
	bare := model.Context{ID: "x"}
	req, err = b.Render(model.TaskDialogue, bare, model.Candidate{ID: "y", Text: "hi"}, Baseline)
	if err != nil {
		t.Fatal(err)
	}
	if got := req.Messages[1].Content; !strings.HasPrefix(got, "Response:\nhi\n\nTask:\n") {
		t.Errorf("bare context: user message %q", got)
	}
}

func TestRenderBatchFields(t *testing.T) {
	b, _ := Builtin("quality")
	ctx, _ := Sample(model.TaskNewsSummary)
	cands := []model.Candidate{ctx.Candidates[1], ctx.Candidates[0]}
	cond, _ := b.Condition("safety:+", 1)
	req, err := b.RenderBatch(model.TaskNewsSummary, ctx, cands, cond)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(req.BatchIDs, ",") != "s2,s1" || strings.Join(req.BatchLabels, ",") != "1,2" {
		t.Errorf("ids %v labels %v, want s2,s1 and 1,2", req.BatchIDs, req.BatchLabels)
	}
	if req.BatchTexts[0] != cands[0].Text || req.BatchTexts[1] != cands[1].Text || req.CandidateID != "" || req.CandidateText != "" {
		t.Errorf("batch texts %q, single fields %q %q", req.BatchTexts, req.CandidateID, req.CandidateText)
	}
	u := req.Messages[1].Content
	i1, i2 := strings.Index(u, "Summary 1:\n"+cands[0].Text), strings.Index(u, "Summary 2:\n"+cands[1].Text)
	if i1 < 0 || i2 < i1 {
		t.Errorf("candidates not shown in the given order:\n%s", u)
	}
	if !strings.HasSuffix(u, `{"scores": {"1": <int 1–10>, "2": <int 1–10>}}.`) {
		t.Errorf("batch answer format: %q", u[max(0, len(u)-80):])
	}
	for _, id := range req.BatchIDs {
		if strings.Contains(u, id) {
			t.Errorf("candidate id %q leaks into the prompt", id)
		}
	}
}

func TestRenderErrors(t *testing.T) {
	b, _ := Builtin("quality")
	ctx, _ := Sample(model.TaskNewsSummary)
	other, _ := Builtin("style8")
	foreign, _ := other.Condition("length:+", 0)
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"unknown task", func() error { _, err := b.Render("poem", ctx, ctx.Candidates[0], Baseline); return err }(), `no task "poem" (it has news-summary)`},
		{"foreign probe", func() error { _, err := b.Render("news-summary", ctx, ctx.Candidates[0], foreign); return err }(), "no condition length:+"},
		{"wrong wording", func() error {
			_, err := b.Render("news-summary", ctx, ctx.Candidates[0], Condition{Probe: "coverage:+", Wording: 2})
			return err
		}(), "no condition coverage:+ wording 2"},
		{"edited instruction", func() error {
			_, err := b.Render("news-summary", ctx, ctx.Candidates[0], Condition{Probe: "coverage:+", Instruction: "x"})
			return err
		}(), "does not carry"},
		{"empty batch", func() error { _, err := b.RenderBatch("news-summary", ctx, nil, Baseline); return err }(), "no candidates"},
		{"repeated id", func() error {
			_, err := b.RenderBatch("news-summary", ctx, []model.Candidate{ctx.Candidates[0], ctx.Candidates[0]}, Baseline)
			return err
		}(), `repeated id "s1"`},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, tc.err, tc.want)
		}
	}
}

func TestScaleText(t *testing.T) {
	for _, tc := range []struct {
		s            Scale
		rng, anchors string
	}{
		{Scale{Min: 1, Max: 10}, "1–10", ""},
		{Scale{Min: 0, Max: 100, Anchors: []ScaleAnchor{{0, 0, "none"}, {1, 49, "weak"}, {50, 100, "strong"}}}, "0–100", "0 = none, 1–49 = weak, 50–100 = strong"},
		{Scale{Min: -2, Max: 2, Anchors: []ScaleAnchor{{-2, -1, "worse"}}}, "-2–2", "-2–-1 = worse"},
	} {
		if got := tc.s.Range(); got != tc.rng {
			t.Errorf("%+v Range = %q, want %q", tc.s, got, tc.rng)
		}
		if got := tc.s.AnchorText(); got != tc.anchors {
			t.Errorf("%+v AnchorText = %q, want %q", tc.s, got, tc.anchors)
		}
	}
}
