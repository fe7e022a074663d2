package banks_test

import (
	"fmt"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/model"
)

// The coverage probe of paper Table 1: only the added system instruction
// changes between the baseline and the probes.
func ExampleBank_Render() {
	b, _ := banks.Builtin("quality")
	ctx := model.Context{ID: "d1", Source: "Barcelona club president Josep Maria Bartomeu has insisted that the La Liga leaders have no plans to replace Luis Enrique."}
	cand := model.Candidate{ID: "M11", Text: "Barca have no plans to replace Luis Enrique"}
	cond, _ := b.Condition("coverage:+", 0)
	req, _ := b.Render(model.TaskNewsSummary, ctx, cand, cond)
	for _, m := range req.Messages {
		fmt.Printf("[%s]\n%s\n", m.Role, m.Content)
	}
	// Output:
	// [system]
	// You are evaluating machine-generated summaries of news articles. When you assign the score, weight how much of the article’s important content the summary includes more heavily than you normally would.
	// [user]
	// Source article:
	// Barcelona club president Josep Maria Bartomeu has insisted that the La Liga leaders have no plans to replace Luis Enrique.
	//
	// Summary:
	// Barca have no plans to replace Luis Enrique
	//
	// Task:
	// Rate the overall quality of the summary as a summary of the article—how well it selects what matters, holds together as a text, and would serve a reader in place of the article. Use the whole 1–10 scale: 1–2 = very poor, 3–4 = poor, 5–6 = acceptable, 7–8 = good, 9–10 = excellent. Respond with only a JSON object: {"score": <int 1–10>}.
}

func ExampleBank_Conditions() {
	b, _ := banks.Builtin("style7")
	conds := b.Conditions()
	fmt.Println(len(conds), "conditions")
	for _, c := range conds[:6] {
		fmt.Println(c.Probe, c.Wording)
	}
	fmt.Println(conds[len(conds)-1].Probe, "=", conds[len(conds)-1].Instruction)
	// Output:
	// 34 conditions
	// baseline 0
	// length:+ 0
	// length:+ 1
	// length:- 0
	// length:- 1
	// detail:+ 0
	// neutral:honest = Give the score that you think is right.
}

func ExampleParse() {
	_, err := banks.Parse([]byte(`name = "mine"
[templates]
plus = ["Weight [clause] more."]
minus = ["Weight it less."]

[[attributes]]
name = "Length"
clause = "how long it is"
`), "mine.toml")
	fmt.Println(err)
	// Output:
	// mine.toml:4:1: templates.minus[0]: template has no [clause] placeholder
	// mine.toml:7:1: attributes[0].name: "Length" is not a valid name: use 1–40 lowercase letters, digits, '_' or '-', starting with a letter
	// mine.toml: tasks: no task prompt: add a [tasks.KIND] table, KIND one of news-summary, story, dialogue, answer, generic
}
