package banks

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/model"
)

// RubricCall describes what a rubric request asks (Request.Rubric).
type RubricCall struct {
	Rubric string // the rubric's name
	Kind   string // RubricSAJA or RubricGEval
	// Criteria are the criteria the reply rates: every criterion of the
	// rubric in file order for SAJA, the one asked for G-Eval.
	Criteria []RatedCriterion
}

// RatedCriterion is one criterion a rubric request asks for.
type RatedCriterion struct {
	Name  string // JSON member of a SAJA answer; the score column
	Label string // the name the prompt uses (G-Eval's "Coherence:" form line)
	Scale Scale
}

// Probe names of rubric requests: "saja" for a SAJA request (one per
// candidate), "geval:NAME" for G-Eval's request on criterion NAME.
const (
	ProbeSAJA   = "saja"
	prefixGEval = "geval:"
)

// GEvalProbe names G-Eval's request on one criterion.
func GEvalProbe(criterion string) string { return prefixGEval + criterion }

// Names returns the criteria's names, in order.
func (rc *RubricCall) Names() []string {
	out := make([]string, len(rc.Criteria))
	for i, c := range rc.Criteria {
		out[i] = c.Name
	}
	return out
}

// Schema is the JSON schema of a SAJA answer, for an OpenAI-compatible
// response_format {"type": "json_schema", "json_schema": {"name":
// "ratings", "strict": true, "schema": …}}: an object with one required
// integer member per criterion, bounded by its scale, and no other member.
// It is nil for a G-Eval request, whose answer is free text.
func (rc *RubricCall) Schema() json.RawMessage {
	if rc == nil || rc.Kind != RubricSAJA {
		return nil
	}
	props := make(map[string]any, len(rc.Criteria))
	for _, c := range rc.Criteria {
		props[c.Name] = map[string]any{"type": "integer", "minimum": c.Scale.Min, "maximum": c.Scale.Max}
	}
	schema := map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             rc.Names(),
		"additionalProperties": false,
	}
	raw, _ := json.Marshal(schema) // maps of strings and ints always marshal
	return raw
}

// SchemaName is the json_schema name of a SAJA answer.
const SchemaName = "ratings"

// RubricRenderer renders a rubric's requests for one task from a frozen
// copy of the rubric, its hash computed once. It is safe for concurrent
// use.
type RubricRenderer struct {
	rubric *Rubric
	task   RubricTask
	hash   string
	saja   string // SAJA: the criteria and answer sections, rendered once
}

// Renderer returns a RubricRenderer for task over a copy of the rubric
// taken now. The rubric must be valid (Validate): one built in code is
// checked here, as ParseRubric checks a file.
func (r *Rubric) Renderer(task string) (*RubricRenderer, error) {
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("banks: rubric %q is invalid: %w", r.Name, err)
	}
	t, ok := r.Tasks[task]
	if !ok {
		return nil, fmt.Errorf("banks: rubric %q has no task %q (it has %s)", r.Name, task, strings.Join(r.TaskNames(), ", "))
	}
	cp := r.Clone()
	rr := &RubricRenderer{rubric: cp, task: t, hash: cp.Hash()}
	if cp.Kind == RubricSAJA {
		rr.saja = sajaTaskText(cp, t)
	}
	return rr, nil
}

// Hash is the hash of the rubric the renderer was made from.
func (rr *RubricRenderer) Hash() string { return rr.hash }

// Rubric returns a copy of the rubric the renderer was made from.
func (rr *RubricRenderer) Rubric() *Rubric { return rr.rubric.Clone() }

// Render returns the requests for one candidate: one SAJA request, or one
// G-Eval request per criterion in rubric order.
func (r *Rubric) Render(task string, c model.Context, cand model.Candidate) ([]Request, error) {
	rr, err := r.Renderer(task)
	if err != nil {
		return nil, err
	}
	return rr.Render(c, cand), nil
}

// Render returns the requests for one candidate: one SAJA request, or one
// G-Eval request per criterion in rubric order.
//
// SAJA. The system message is Task.System; the user message is, separated
// by blank lines:
//
//	SOURCE_LABEL:\nSOURCE            (omitted when the source is empty)
//	EXTRA_LABEL:\nEXTRA              (each Task.Extras field present in c.Extra)
//	CANDIDATE_LABEL:\nCANDIDATE
//	TASK_LABEL:\nPROMPT              (PROMPT alone without a task label)
//	CRITERIA_LABEL:\n- NAME (MIN–MAX): DEFINITION Scale: ANCHORS.   (one line per criterion)
//	ANSWER                           ("[format]" → {"NAME": <int MIN–MAX>, …})
//
// G-Eval, per criterion, without a template. The system message is
// Task.System when set (else the request has only the user message):
//
//	TASK_LABEL:\nPROMPT
//	CRITERIA_LABEL:\nLABEL (MIN–MAX): DEFINITION Scale: ANCHORS.
//	STEPS_LABEL:\n1. STEP\n2. STEP …
//	SOURCE_LABEL:\nSOURCE
//	EXTRA_LABEL:\nEXTRA
//	CANDIDATE_LABEL:\nCANDIDATE
//	ANSWER                           ("[criterion]" → LABEL, "[scale]" → MIN–MAX)
//
// With a template (Criterion.Template) the only message is the user
// message: the template with {{Document}} → SOURCE and {{Summary}} →
// CANDIDATE, replaced in one pass.
func (rr *RubricRenderer) Render(c model.Context, cand model.Candidate) []Request {
	if rr.rubric.Kind == RubricSAJA {
		return []Request{rr.renderSAJA(c, cand)}
	}
	out := make([]Request, len(rr.rubric.Criteria))
	for i := range rr.rubric.Criteria {
		out[i] = rr.renderGEval(c, cand, rr.rubric.Criteria[i])
	}
	return out
}

// RenderCriterion returns G-Eval's request for one criterion of one
// candidate; an error for a SAJA rubric or an unknown criterion.
func (rr *RubricRenderer) RenderCriterion(c model.Context, cand model.Candidate, criterion string) (Request, error) {
	if rr.rubric.Kind != RubricGEval {
		return Request{}, fmt.Errorf("banks: rubric %q is %s: its criteria are asked together", rr.rubric.Name, rr.rubric.Kind)
	}
	cr, ok := rr.rubric.Criterion(criterion)
	if !ok {
		return Request{}, fmt.Errorf("banks: rubric %q has no criterion %q (it has %s)", rr.rubric.Name, criterion, strings.Join(rr.rubric.CriterionNames(), ", "))
	}
	return rr.renderGEval(c, cand, cr), nil
}

func (rr *RubricRenderer) renderSAJA(c model.Context, cand model.Candidate) Request {
	var u strings.Builder
	rubricContext(&u, rr.task, c)
	section(&u, rr.task.CandidateLabel, cand.Text)
	section(&u, "", rr.saja)
	call := &RubricCall{Rubric: rr.rubric.Name, Kind: RubricSAJA}
	hull := Scale{Min: rr.rubric.Criteria[0].Scale.Min, Max: rr.rubric.Criteria[0].Scale.Max}
	for _, cr := range rr.rubric.Criteria {
		call.Criteria = append(call.Criteria, ratedOf(cr))
		hull.Min, hull.Max = min(hull.Min, cr.Scale.Min), max(hull.Max, cr.Scale.Max)
	}
	return Request{
		BankHash:      rr.hash,
		Probe:         ProbeSAJA,
		ContextID:     c.ID,
		CandidateID:   cand.ID,
		Messages:      []Message{{Role: "system", Content: rr.task.System}, {Role: "user", Content: u.String()}},
		Scale:         hull,
		Source:        c.Source,
		CandidateText: cand.Text,
		Rubric:        call,
	}
}

// sajaTaskText is the part of a SAJA user message after the candidate.
func sajaTaskText(r *Rubric, t RubricTask) string {
	var u strings.Builder
	section(&u, t.TaskLabel, t.Prompt)
	var list strings.Builder
	shape := make([]string, len(r.Criteria))
	for i, c := range r.Criteria {
		if i > 0 {
			list.WriteByte('\n')
		}
		list.WriteString("- " + c.Name + " (" + c.Scale.Range() + "): " + criterionText(c))
		shape[i] = strconv.Quote(c.Name) + ": <int " + c.Scale.Range() + ">"
	}
	section(&u, t.CriteriaLabel, list.String())
	section(&u, "", strings.ReplaceAll(t.Answer, PlaceholderFormat, "{"+strings.Join(shape, ", ")+"}"))
	return u.String()
}

// criterionText is a criterion's definition followed by its anchors.
func criterionText(c Criterion) string {
	if len(c.Scale.Anchors) == 0 {
		return c.Definition
	}
	return c.Definition + " Scale: " + c.Scale.AnchorText() + "."
}

func (rr *RubricRenderer) renderGEval(c model.Context, cand model.Candidate, cr Criterion) Request {
	req := Request{
		BankHash:      rr.hash,
		Probe:         GEvalProbe(cr.Name),
		ContextID:     c.ID,
		CandidateID:   cand.ID,
		Scale:         scaleCopy(cr.Scale),
		Source:        c.Source,
		CandidateText: cand.Text,
		Rubric:        &RubricCall{Rubric: rr.rubric.Name, Kind: RubricGEval, Criteria: []RatedCriterion{ratedOf(cr)}},
	}
	if cr.Template != "" {
		user := strings.NewReplacer(TemplateDocument, c.Source, TemplateSummary, cand.Text).Replace(cr.Template)
		req.Messages = []Message{{Role: "user", Content: user}}
		return req
	}
	t := rr.task
	var u strings.Builder
	section(&u, t.TaskLabel, t.Prompt)
	section(&u, t.CriteriaLabel, cr.DisplayLabel()+" ("+cr.Scale.Range()+"): "+criterionText(cr))
	var steps strings.Builder
	for i, s := range cr.Steps {
		if i > 0 {
			steps.WriteByte('\n')
		}
		steps.WriteString(strconv.Itoa(i+1) + ". " + s)
	}
	section(&u, t.StepsLabel, steps.String())
	rubricContext(&u, t, c)
	section(&u, t.CandidateLabel, cand.Text)
	section(&u, "", strings.NewReplacer(PlaceholderCriterion, cr.DisplayLabel(), PlaceholderScale, cr.Scale.Range()).Replace(t.Answer))
	if t.System != "" {
		req.Messages = append(req.Messages, Message{Role: "system", Content: t.System})
	}
	req.Messages = append(req.Messages, Message{Role: "user", Content: u.String()})
	return req
}

func ratedOf(c Criterion) RatedCriterion {
	return RatedCriterion{Name: c.Name, Label: c.DisplayLabel(), Scale: scaleCopy(c.Scale)}
}

// rubricContext writes the source and the extras, as writeContext does
// for a bank's task.
func rubricContext(u *strings.Builder, t RubricTask, c model.Context) {
	if c.Source != "" {
		section(u, t.SourceLabel, c.Source)
	}
	for _, e := range t.Extras {
		if v := c.Extra[e.Field]; v != "" {
			section(u, e.Label, v)
		}
	}
}
