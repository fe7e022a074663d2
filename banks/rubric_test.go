package banks

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

// tinySAJA uses every SAJA key in a few lines.
const tinySAJA = `name = "tiny"
description = "d"
source = "s"
kind = "saja"

[[criteria]]
name = "a"
label = "Aye"
definition = "Is it A."
scale = { min = 1, max = 3 }

[[criteria]]
name = "b"
definition = "Is it B."
source = "t"
[criteria.scale]
min = 0
max = 10
anchors = [{ from = 0, to = 4, label = "low" }, { from = 5, to = 10, label = "high" }]

[tasks.dialogue]
system = "S."
source_label = "Src"
candidate_label = "Text"
task_label = "Task"
prompt = "Rate it."
criteria_label = "Criteria"
answer = "JSON: [format]"
extras = [{ field = "knowledge", label = "Fact" }]
`

// tinyGEval is a two-criterion G-Eval rubric.
const tinyGEval = `name = "tg"
kind = "geval"

[[criteria]]
name = "key-points"
definition = "Keeps what matters."
scale = { min = 1, max = 5, anchors = [{ from = 1, to = 1, label = "none" }, { from = 5, to = 5, label = "all" }] }
steps = ["Read.", "Judge."]

[[criteria]]
name = "flow"
label = "Flow"
definition = "Reads well."
scale = { min = 1, max = 3 }
steps = ["Read it."]

[tasks.news-summary]
source_label = "Article"
candidate_label = "Summary"
prompt = "Rate the summary."
criteria_label = "Criterion"
steps_label = "Steps"
answer = """Form:
- [criterion] ([scale]):"""
`

func mustRubric(t *testing.T, src string) *Rubric {
	t.Helper()
	r, err := ParseRubric([]byte(src), "r.toml")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestBuiltinRubrics: the three built-ins have the documented criteria,
// round-trip through Marshal and ParseRubric with the same hash, and
// BuiltinRubric hands out independent copies.
func TestBuiltinRubrics(t *testing.T) {
	want := map[string]int{"saja-broad": 8, "saja-granular": 28, "geval-summeval": 4}
	rs := BuiltinRubrics()
	if len(rs) != len(want) {
		t.Fatalf("%d built-in rubrics, want %d", len(rs), len(want))
	}
	for _, r := range rs {
		if got := len(r.Criteria); got != want[r.Name] {
			t.Errorf("%s: %d criteria, want %d", r.Name, got, want[r.Name])
		}
		data, err := BuiltinRubricFile(r.Name)
		if err != nil {
			t.Fatal(err)
		}
		fromFile, err := ParseRubric(data, r.Name+".toml")
		if err != nil || !reflect.DeepEqual(fromFile, r) {
			t.Errorf("%s: embedded file and BuiltinRubric differ (%v)", r.Name, err)
		}
		out, err := r.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseRubric(out, "marshalled")
		if err != nil {
			t.Fatalf("%s: Marshal output does not parse: %v\n%s", r.Name, err, out)
		}
		if !reflect.DeepEqual(back, r) || back.Hash() != r.Hash() {
			t.Errorf("%s: round trip changed the rubric", r.Name)
		}
		out2, _ := back.Marshal()
		if !bytes.Equal(out, out2) {
			t.Errorf("%s: second Marshal differs", r.Name)
		}
		if _, ok := r.Tasks[model.TaskNewsSummary]; !ok {
			t.Errorf("%s: no news-summary task", r.Name)
		}
	}

	// saja-broad is the quality bank's attributes with overall in coverage's place.
	q, _ := Builtin("quality")
	broad, _ := BuiltinRubric("saja-broad")
	var names []string
	for _, a := range q.Attributes {
		if a.Name == "coverage" {
			a.Name = "overall"
		}
		names = append(names, a.Name)
	}
	if got := broad.CriterionNames(); !reflect.DeepEqual(got, names) {
		t.Errorf("saja-broad criteria %v, want %v", got, names)
	}

	// geval-summeval: SummEval's scales, steps on every criterion.
	g, _ := BuiltinRubric("geval-summeval")
	scales := map[string][2]int{"coherence": {1, 5}, "consistency": {1, 5}, "fluency": {1, 3}, "relevance": {1, 5}}
	for _, c := range g.Criteria {
		if s := scales[c.Name]; s != [2]int{c.Scale.Min, c.Scale.Max} {
			t.Errorf("geval %s scale %d–%d, want %v", c.Name, c.Scale.Min, c.Scale.Max, s)
		}
		if len(c.Steps) == 0 {
			t.Errorf("geval %s has no steps", c.Name)
		}
	}

	h := g.Hash()
	g.Criteria[0].Steps[0] = "changed"
	g.Criteria[0].Scale.Max = 9
	if g2, _ := BuiltinRubric("geval-summeval"); g2.Hash() != h {
		t.Error("editing a returned rubric changed the built-in one")
	}
	if _, err := BuiltinRubric("nope"); err == nil || !strings.Contains(err.Error(), "saja-broad") {
		t.Errorf("BuiltinRubric(nope) = %v, want the list of names", err)
	}
}

// TestParseRubricErrors: each broken file gives the error at its line and
// column, naming the field.
func TestParseRubricErrors(t *testing.T) {
	cases := []struct {
		name, old, new, want string
	}{
		{"duplicate criterion", `name = "b"`, `name = "a"`, `r.toml:13:1: criteria[1].name: duplicate name "a"`},
		{"invalid criterion name", `name = "b"`, `name = "B b"`, `r.toml:13:1: criteria[1].name: "B b" is not a valid name`},
		{"one-point scale", `scale = { min = 1, max = 3 }`, `scale = { min = 3, max = 3 }`, `r.toml:10:1: criteria[0].scale.min: min 3 must be below max 3`},
		{"reversed scale", "min = 0\nmax = 10", "min = 10\nmax = 0", `r.toml:17:1: criteria[1].scale.min: min 10 must be below max 0`},
		{"anchor outside", `to = 10, label = "high"`, `to = 11, label = "high"`, `r.toml:19:1: criteria[1].scale.anchors[1]: 5–11 is outside the scale 0–10`},
		{"kind", `kind = "saja"`, `kind = "sajja"`, `r.toml:4:1: kind: unknown rubric kind "sajja": use saja or geval`},
		{"steps in saja", `label = "Aye"`, `steps = ["x"]`, `r.toml:8:1: criteria[0].steps: evaluation steps are for G-Eval rubrics`},
		{"template in saja", `label = "Aye"`, `template = "{{Summary}}"`, `r.toml:8:1: criteria[0].template: a prompt template is for G-Eval rubrics`},
		{"no format", `answer = "JSON: [format]"`, `answer = "JSON"`, `r.toml:28:1: tasks.dialogue.answer: has no [format] placeholder`},
		{"no system", `system = "S."`, `system = ""`, `r.toml:22:1: tasks.dialogue.system: empty`},
		{"unknown key", `label = "Aye"`, `lable = "Aye"`, `r.toml:8:1: criteria[0].lable: unknown key`},
		{"unknown task", `[tasks.dialogue]`, `[tasks.poem]`, `r.toml:21:1: tasks.poem: unknown task kind "poem"`},
		{"empty definition", `definition = "Is it A."`, `definition = " "`, `r.toml:9:1: criteria[0].definition: empty`},
		{"label on two lines", `label = "Aye"`, `label = "A\nye"`, `r.toml:8:1: criteria[0].label: a label is one line`},
		{"syntax", `kind = "saja"`, `kind = saja`, `r.toml:4:`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(tinySAJA, c.old, c.new, 1)
			if src == tinySAJA {
				t.Fatalf("%q not found", c.old)
			}
			_, err := ParseRubric([]byte(src), "r.toml")
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("error %v (%T), want Errors", err, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error\n%v\nwant it to contain\n%s", err, c.want)
			}
		})
	}

	geval := []struct{ name, old, new, want string }{
		{"no steps", `steps = ["Read it."]`, ``, `criteria[1].steps: no evaluation steps`},
		{"empty step", `steps = ["Read it."]`, `steps = [""]`, `criteria[1].steps[0]: empty`},
		{"no criterion placeholder", "- [criterion] ([scale]):", "- Score:", `tasks.news-summary.answer: has no [criterion] placeholder`},
		{"template without summary", `steps = ["Read it."]`, `template = "{{Document}}"`, `criteria[1].template: template has no {{Summary}}`},
		{"unknown placeholder", `steps = ["Read it."]`, `template = "{{Summary}} {{Source}}"`, `criteria[1].template: unknown placeholder "{{Source}}"`},
		{"no criteria", "[[criteria]]", "[[x]]", `criteria: no criterion`},
	}
	for _, c := range geval {
		t.Run(c.name, func(t *testing.T) {
			src := strings.ReplaceAll(tinyGEval, c.old, c.new)
			_, err := ParseRubric([]byte(src), "g.toml")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
	if _, err := ParseRubric([]byte(strings.Replace(tinyGEval, `steps = ["Read it."]`, `template = "  {{Summary}}\n"`, 1)), "g.toml"); err != nil {
		t.Errorf("a template keeps its white space: %v", err)
	}
	if _, err := ParseRubric(make([]byte, MaxFileSize+1), "big.toml"); err == nil || !strings.Contains(err.Error(), "rubric file") {
		t.Errorf("oversize file: %v", err)
	}
}

// TestRubricHash: every field changes the hash; comments and layout do not.
func TestRubricHash(t *testing.T) {
	base := mustRubric(t, tinySAJA)
	h := base.Hash()
	if len(h) != 64 {
		t.Fatalf("hash %q", h)
	}
	same := mustRubric(t, "# comment\n"+strings.ReplaceAll(tinySAJA, " = ", "="))
	if same.Hash() != h {
		t.Error("comments and spacing changed the hash")
	}
	edits := []func(r *Rubric){
		func(r *Rubric) { r.Description += "x" },
		func(r *Rubric) { r.Criteria[0].Label = "Ay" },
		func(r *Rubric) { r.Criteria[0].Definition += "x" },
		func(r *Rubric) { r.Criteria[0].Scale.Max = 4 },
		func(r *Rubric) { r.Criteria[1].Scale.Anchors[0].Label = "lo" },
		func(r *Rubric) { r.Criteria[0].Template = "x" },
		func(r *Rubric) { r.Criteria[0].Steps = []string{"x"} },
		func(r *Rubric) { r.Criteria[0], r.Criteria[1] = r.Criteria[1], r.Criteria[0] },
		func(r *Rubric) { t := r.Tasks["dialogue"]; t.Answer += "!"; r.Tasks["dialogue"] = t },
		func(r *Rubric) { t := r.Tasks["dialogue"]; t.CriteriaLabel = "C"; r.Tasks["dialogue"] = t },
		func(r *Rubric) { r.Kind = RubricGEval },
	}
	for i, edit := range edits {
		r := base.Clone()
		edit(r)
		if r.Hash() == h {
			t.Errorf("edit %d did not change the hash", i)
		}
		if base.Hash() != h {
			t.Fatalf("edit %d changed the original through Clone", i)
		}
	}
}

func TestRenderSAJA(t *testing.T) {
	r := mustRubric(t, tinySAJA)
	c := model.Context{ID: "c1", Source: "The source.", Extra: map[string]string{"knowledge": "A fact."}}
	cand := model.Candidate{ID: "x", Text: "The candidate."}
	reqs, err := r.Render("dialogue", c, cand)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 1 {
		t.Fatalf("%d SAJA requests, want 1", len(reqs))
	}
	req := reqs[0]
	wantUser := "Src:\nThe source.\n\nFact:\nA fact.\n\nText:\nThe candidate.\n\nTask:\nRate it.\n\nCriteria:\n" +
		"- a (1–3): Is it A.\n- b (0–10): Is it B. Scale: 0–4 = low, 5–10 = high.\n\n" +
		`JSON: {"a": <int 1–3>, "b": <int 0–10>}`
	want := []Message{{Role: "system", Content: "S."}, {Role: "user", Content: wantUser}}
	if !reflect.DeepEqual(req.Messages, want) {
		t.Errorf("messages\n%q\nwant\n%q", req.Messages, want)
	}
	if req.Probe != ProbeSAJA || req.BankHash != r.Hash() || req.ContextID != "c1" || req.CandidateID != "x" ||
		req.Source != c.Source || req.CandidateText != cand.Text {
		t.Errorf("request fields %+v", req)
	}
	if req.Scale.Min != 0 || req.Scale.Max != 10 {
		t.Errorf("SAJA scale %v, want the hull 0–10", req.Scale)
	}
	rc := req.Rubric
	if rc == nil || rc.Kind != RubricSAJA || rc.Rubric != "tiny" || len(rc.Criteria) != 2 ||
		!reflect.DeepEqual(rc.Criteria[0], RatedCriterion{Name: "a", Label: "Aye", Scale: Scale{Min: 1, Max: 3}}) || rc.Criteria[1].Label != "B" {
		t.Fatalf("rubric call %+v", rc)
	}
	var schema struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type string `json:"type"`
			Min  int    `json:"minimum"`
			Max  int    `json:"maximum"`
		} `json:"properties"`
		Required   []string `json:"required"`
		Additional bool     `json:"additionalProperties"`
	}
	if err := json.Unmarshal(rc.Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || !reflect.DeepEqual(schema.Required, []string{"a", "b"}) || schema.Additional ||
		schema.Properties["a"].Type != "integer" || schema.Properties["b"].Min != 0 || schema.Properties["b"].Max != 10 || len(schema.Properties) != 2 {
		t.Errorf("schema %s", rc.Schema())
	}
	if !strings.Contains(string(rc.Schema()), `"b":{"maximum":10,"minimum":0,"type":"integer"}`) {
		t.Errorf("schema bounds: %s", rc.Schema())
	}
	// Without a source the source section is left out.
	reqs, _ = r.Render("dialogue", model.Context{ID: "c2"}, cand)
	if u := reqs[0].Messages[1].Content; !strings.HasPrefix(u, "Text:\nThe candidate.") {
		t.Errorf("user message without source starts %q", u[:20])
	}
	if _, err := r.Render("story", c, cand); err == nil {
		t.Error("a missing task renders")
	}
	rr, _ := r.Renderer("dialogue")
	if _, err := rr.RenderCriterion(c, cand, "a"); err == nil {
		t.Error("RenderCriterion on a SAJA rubric")
	}
	// A rubric edited in code into an invalid one does not render.
	broken := r.Clone()
	broken.Criteria = nil
	if _, err := broken.Render("dialogue", c, cand); err == nil || !strings.Contains(err.Error(), "no criterion") {
		t.Errorf("an invalid rubric renders: %v", err)
	}
}

func TestRenderGEval(t *testing.T) {
	r := mustRubric(t, tinyGEval)
	c := model.Context{ID: "c", Source: "Art {{Summary}}."}
	cand := model.Candidate{ID: "s", Text: "Sum."}
	reqs, err := r.Render("news-summary", c, cand)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want one per criterion", len(reqs))
	}
	want0 := "Rate the summary.\n\nCriterion:\nKey points (1–5): Keeps what matters. Scale: 1 = none, 5 = all.\n\n" +
		"Steps:\n1. Read.\n2. Judge.\n\nArticle:\nArt {{Summary}}.\n\nSummary:\nSum.\n\nForm:\n- Key points (1–5):"
	if m := reqs[0].Messages; len(m) != 1 || m[0].Role != "user" || m[0].Content != want0 {
		t.Errorf("G-Eval messages\n%q\nwant one user message\n%q", m, want0)
	}
	if reqs[1].Probe != "geval:flow" || !reflect.DeepEqual(reqs[1].Scale, Scale{Min: 1, Max: 3}) ||
		len(reqs[1].Rubric.Criteria) != 1 || reqs[1].Rubric.Criteria[0].Label != "Flow" || reqs[1].Rubric.Schema() != nil {
		t.Errorf("second request %+v %+v", reqs[1], reqs[1].Rubric)
	}
	if !strings.HasSuffix(reqs[1].Messages[0].Content, "- Flow (1–3):") {
		t.Errorf("form line: %q", reqs[1].Messages[0].Content)
	}

	// A system message when the task has one.
	r2 := r.Clone()
	task := r2.Tasks["news-summary"]
	task.System = "Sys."
	r2.Tasks["news-summary"] = task
	reqs, _ = r2.Render("news-summary", c, cand)
	if m := reqs[0].Messages; len(m) != 2 || m[0] != (Message{Role: "system", Content: "Sys."}) || m[1].Content != want0 {
		t.Errorf("with system: %q", m)
	}

	// A template replaces the whole prompt, in one pass: the source's
	// "{{Summary}}" stays as written.
	r2.Criteria[1].Template = "Doc: {{Document}}\nSum: {{Summary}}\n- Flow:"
	rr, err := r2.Renderer("news-summary")
	if err != nil {
		t.Fatal(err)
	}
	req, err := rr.RenderCriterion(c, cand, "flow")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Message{{Role: "user", Content: "Doc: Art {{Summary}}.\nSum: Sum.\n- Flow:"}}; !reflect.DeepEqual(req.Messages, want) {
		t.Errorf("template request %q, want %q", req.Messages, want)
	}
	if req.BankHash == reqs[1].BankHash {
		t.Error("a template did not change the hash")
	}
	if _, err := rr.RenderCriterion(c, cand, "nope"); err == nil || !strings.Contains(err.Error(), "key-points, flow") {
		t.Errorf("unknown criterion: %v", err)
	}
}

func TestLoadPrompts(t *testing.T) {
	g, _ := BuiltinRubric("geval-summeval")
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("coherence.txt", "Coherence prompt\n{{Document}}\n{{Summary}}\n- Coherence:\n")
	write("con_detailed.txt", "Consistency\n{{Document}}\n{{Summary}}\n- Consistency:")
	write("flu_detailed.txt", "Fluency {{Summary}}\n- Fluency (1-3):")
	write("README.md", "ignored")
	_, err := g.LoadPrompts(dir)
	if err == nil || !strings.Contains(err.Error(), `criterion "relevance"`) || !strings.Contains(err.Error(), "rel_detailed.txt") {
		t.Fatalf("missing relevance file: %v", err)
	}
	write("relevance.txt", "Relevance {{Document}}")
	if _, err := g.LoadPrompts(dir); err == nil || !strings.Contains(err.Error(), "relevance.txt: template has no {{Summary}}") {
		t.Fatalf("bad template: %v", err)
	}
	write("relevance.txt", "Relevance {{Document}} {{Summary}}")
	got, err := g.LoadPrompts(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Criteria[0].Template != "Coherence prompt\n{{Document}}\n{{Summary}}\n- Coherence:\n" || got.Criteria[1].Template == "" {
		t.Errorf("templates %q", got.Criteria[0].Template)
	}
	if g.Criteria[0].Template != "" {
		t.Error("LoadPrompts changed the rubric it was called on")
	}
	if got.Hash() == g.Hash() {
		t.Error("prompt files did not change the hash")
	}
	// The loaded rubric round-trips, templates (and their white space) included.
	out, _ := got.Marshal()
	back, err := ParseRubric(out, "m")
	if err != nil || back.Hash() != got.Hash() {
		t.Errorf("loaded rubric round trip: %v", err)
	}
	c, _ := Sample(model.TaskNewsSummary)
	reqs, _ := got.Render(model.TaskNewsSummary, c, c.Candidates[1])
	if m := reqs[2].Messages; len(m) != 1 || m[0].Content != "Fluency "+c.Candidates[1].Text+"\n- Fluency (1-3):" {
		t.Errorf("fluency request %q", m)
	}
	saja, _ := BuiltinRubric("saja-broad")
	if _, err := saja.LoadPrompts(dir); err == nil {
		t.Error("prompt files loaded into a SAJA rubric")
	}
	if _, err := g.LoadPrompts(filepath.Join(dir, "nope")); err == nil {
		t.Error("a missing directory loads")
	}
}

func TestCriterionHelpers(t *testing.T) {
	c := Criterion{Name: "key_points-x", Scale: Scale{Min: 1, Max: 5}}
	if got := c.DisplayLabel(); got != "Key points x" {
		t.Errorf("DisplayLabel = %q", got)
	}
	for _, tc := range []struct{ v, want float64 }{{1, 0}, {5, 1}, {2, .25}, {3.5, .625}} {
		if got := c.Unit(tc.v); got != tc.want {
			t.Errorf("Unit(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
	if got := (Criterion{Scale: Scale{Min: 1, Max: 3}}).Unit(2); got != .5 {
		t.Errorf("1–3 Unit(2) = %v", got)
	}
}

// TestRubricDocs: docs/rubrics.md lists every built-in rubric with its
// kind, criterion count and current hash prefix.
func TestRubricDocs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "rubrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range BuiltinRubrics() {
		row := "| `" + r.Name + "` | " + r.Kind + " | " + strconv.Itoa(len(r.Criteria)) + " |"
		if !strings.Contains(string(doc), row) || !strings.Contains(string(doc), "`"+r.Hash()[:12]+"`") {
			t.Errorf("docs/rubrics.md: no row %q with hash %s", row, r.Hash()[:12])
		}
	}
}
