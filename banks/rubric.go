package banks

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/prism-eval/prism/model"
)

// Rubric is a rubric for the rubric baselines beside PRISM (docs/rubrics.md):
// named criteria, each with a definition, a score scale with anchors and,
// for G-Eval, evaluation steps, and a task prompt per kind of data. Like a
// bank it is a TOML file, identified by the hash of its content.
//
// A SAJA rubric asks every criterion of one candidate in one call and
// reads the ratings from one JSON object; a G-Eval rubric asks one call per
// criterion and reads a single rating (or its probability-weighted mean).
type Rubric struct {
	Name        string `toml:"name"`
	Description string `toml:"description,omitempty"`
	// Source says where the wording comes from ("written for prism");
	// criteria may override it.
	Source string `toml:"source,omitempty"`
	// Kind is RubricSAJA or RubricGEval.
	Kind     string      `toml:"kind"`
	Criteria []Criterion `toml:"criteria"`
	// Tasks holds the task prompt per kind of data, keyed by the model.Task*
	// constants, as a bank's do.
	Tasks map[string]RubricTask `toml:"tasks"`
}

// Rubric kinds.
const (
	RubricSAJA  = "saja"
	RubricGEval = "geval"
)

// RubricKinds are the allowed values of Rubric.Kind.
var RubricKinds = []string{RubricSAJA, RubricGEval}

// Criterion is one rated criterion of a rubric.
type Criterion struct {
	// Name is the criterion's key: the JSON member of a SAJA answer and the
	// column name of its scores (model.ValidName).
	Name string `toml:"name"`
	// Label is how the prompt names it ("Coherence"); empty: DisplayLabel
	// derives one from Name.
	Label      string `toml:"label,omitempty"`
	Definition string `toml:"definition"`
	Scale      Scale  `toml:"scale"`
	// Steps are G-Eval's evaluation steps, shown numbered (G-Eval only).
	Steps []string `toml:"steps,omitempty"`
	// Template, G-Eval only, replaces the rendered user message of this
	// criterion: the whole prompt, with {{Document}} and {{Summary}}
	// replaced by the source and the candidate (the official G-Eval
	// prompt files' placeholders; LoadPrompts fills it from a directory).
	// The request then has no system message.
	Template string `toml:"template,omitempty"`
	Source   string `toml:"source,omitempty"`
}

// RubricTask is a rubric's prompt for one kind of data. See Rubric.Render
// for the layout of the messages.
type RubricTask struct {
	// System is the system message; required for SAJA, optional for
	// G-Eval (whose official prompts have none).
	System         string `toml:"system,omitempty"`
	SourceLabel    string `toml:"source_label,omitempty"`
	CandidateLabel string `toml:"candidate_label"`
	// TaskLabel heads the prompt's section; empty: the prompt stands alone.
	TaskLabel string `toml:"task_label,omitempty"`
	Prompt    string `toml:"prompt"`
	// CriteriaLabel heads the list of criteria (SAJA) or the criterion's
	// definition (G-Eval); StepsLabel heads G-Eval's steps.
	CriteriaLabel string `toml:"criteria_label,omitempty"`
	StepsLabel    string `toml:"steps_label,omitempty"`
	// Answer asks for the answer. SAJA: must contain "[format]", replaced by
	// the JSON shape {"NAME": <int MIN–MAX>, …}. G-Eval: the form line, must
	// contain "[criterion]", replaced by the criterion's label; "[scale]"
	// becomes its range.
	Answer string  `toml:"answer"`
	Extras []Extra `toml:"extras,omitempty"`
}

// Placeholders of rubric wording: "[criterion]" in a G-Eval answer, and
// the two placeholders of a G-Eval prompt template (Criterion.Template).
const (
	PlaceholderCriterion = "[criterion]"
	TemplateDocument     = "{{Document}}"
	TemplateSummary      = "{{Summary}}"
)

// DisplayLabel is the criterion's Label, or its Name with the first letter
// upper-cased and '-' and '_' read as spaces ("key-points" → "Key points").
func (c Criterion) DisplayLabel() string {
	if c.Label != "" {
		return c.Label
	}
	s := strings.NewReplacer("-", " ", "_", " ").Replace(c.Name)
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Unit maps a rating on the criterion's scale to [0, 1]:
// (v − Min)/(Max − Min). It does not clip.
func (c Criterion) Unit(v float64) float64 {
	return (v - float64(c.Scale.Min)) / float64(c.Scale.Max-c.Scale.Min)
}

// Criterion returns the criterion with this name.
func (r *Rubric) Criterion(name string) (Criterion, bool) {
	for _, c := range r.Criteria {
		if c.Name == name {
			return c, true
		}
	}
	return Criterion{}, false
}

// CriterionNames returns the criteria's names in file order.
func (r *Rubric) CriterionNames() []string {
	out := make([]string, len(r.Criteria))
	for i, c := range r.Criteria {
		out[i] = c.Name
	}
	return out
}

// TaskNames returns the rubric's task kinds, sorted.
func (r *Rubric) TaskNames() []string { return sortedKeys(r.Tasks) }

const rubricFileKind = "a rubric file"

// ParseRubric reads a rubric from TOML and validates it. file names the
// source in errors. On failure it returns Errors, each naming
// file:line:col and the field path: TOML syntax and type errors, unknown
// keys (exact spelling required) and every rule of Rubric.Validate.
func ParseRubric(data []byte, file string) (*Rubric, error) {
	if len(data) > MaxFileSize {
		return nil, &model.SizeError{File: file, Limit: MaxFileSize, What: rubricFileKind}
	}
	var r Rubric
	errs := decodeFile(data, file, &r, rubricSchema, func() error {
		r.normalize()
		return r.Validate()
	})
	if len(errs) > 0 {
		return nil, errs
	}
	return &r, nil
}

// ReadRubricFile reads and parses a rubric file of at most MaxFileSize
// bytes. Devices are refused before any read (model.OpenInput).
func ReadRubricFile(path string) (*Rubric, error) {
	data, err := model.ReadFileLimited(path, MaxFileSize, rubricFileKind)
	if err != nil {
		return nil, err
	}
	return ParseRubric(data, path)
}

// ReadRubric parses a rubric from r, reading at most MaxFileSize+1 bytes.
func ReadRubric(rd io.Reader, file string) (*Rubric, error) {
	data, err := model.ReadLimited(rd, MaxFileSize, file, rubricFileKind)
	if err != nil {
		return nil, err
	}
	return ParseRubric(data, file)
}

var scaleSchema = map[string]any{"min": nil, "max": nil, "anchors": map[string]any{"from": nil, "to": nil, "label": nil}}

// rubricSchema lists a rubric file's allowed keys ("*": any task kind).
var rubricSchema = map[string]any{
	"name": nil, "description": nil, "source": nil, "kind": nil,
	"criteria": map[string]any{
		"name": nil, "label": nil, "definition": nil, "steps": nil, "template": nil, "source": nil,
		"scale": scaleSchema,
	},
	"tasks": map[string]any{"*": map[string]any{
		"system": nil, "source_label": nil, "candidate_label": nil, "task_label": nil, "prompt": nil,
		"criteria_label": nil, "steps_label": nil, "answer": nil,
		"extras": map[string]any{"field": nil, "label": nil},
	}},
}

// normalize makes empty lists and maps nil, so that a parsed rubric and
// one built in code compare equal whatever the file spelled.
func (r *Rubric) normalize() {
	if len(r.Criteria) == 0 {
		r.Criteria = nil
	}
	for i := range r.Criteria {
		c := &r.Criteria[i]
		c.Steps = nilIfEmpty(c.Steps)
		if len(c.Scale.Anchors) == 0 {
			c.Scale.Anchors = nil
		}
	}
	if len(r.Tasks) == 0 {
		r.Tasks = nil
	}
	for k, t := range r.Tasks {
		if len(t.Extras) == 0 {
			t.Extras = nil
		}
		r.Tasks[k] = t
	}
}

// Validate checks the rubric and returns Errors (Field set, File and Line
// empty) or nil. Rules: a valid rubric name; kind "saja" or "geval"; at
// least one criterion; criterion names valid (model.ValidName) and unique;
// every criterion has a definition and a scale of at least two points
// (min < max) whose anchors lie inside it in increasing order without
// overlap; a label on one line; steps (each non-empty) only in a G-Eval
// rubric, where every criterion needs steps or a template; a template
// only in a G-Eval rubric, holding {{Summary}} and no other {{…}}
// placeholder than {{Document}}; at least one task of a known kind, each
// with a candidate label, a prompt and an answer — SAJA answers contain
// "[format]" and SAJA tasks need a system message; G-Eval answers contain
// "[criterion]". Wording may not start or end with white space.
func (r *Rubric) Validate() error {
	var v validator
	v.name("name", r.Name)
	v.optText("description", r.Description)
	v.optText("source", r.Source)
	geval := r.Kind == RubricGEval
	if r.Kind != RubricSAJA && !geval {
		v.add("kind", "unknown rubric kind %q: use %s", r.Kind, strings.Join(RubricKinds, " or "))
	}
	if len(r.Criteria) == 0 {
		v.add("criteria", "no criterion: add a [[criteria]] table")
	}
	seen := map[string]bool{}
	for i, c := range r.Criteria {
		p := fmt.Sprintf("criteria[%d]", i)
		v.unique(p+".name", c.Name, seen)
		v.optText(p+".label", c.Label)
		if strings.ContainsAny(c.Label, "\n\r") {
			v.add(p+".label", "a label is one line")
		}
		v.text(p+".definition", c.Definition)
		v.optText(p+".source", c.Source)
		v.scale(p+".scale", c.Scale)
		for j, s := range c.Steps {
			v.text(fmt.Sprintf("%s.steps[%d]", p, j), s)
		}
		switch {
		case !geval && len(c.Steps) > 0:
			v.add(p+".steps", "evaluation steps are for G-Eval rubrics (kind = %q)", RubricGEval)
		case !geval && c.Template != "":
			v.add(p+".template", "a prompt template is for G-Eval rubrics (kind = %q)", RubricGEval)
		case geval && len(c.Steps) == 0 && c.Template == "":
			v.add(p+".steps", "no evaluation steps: give steps = [...] or a template")
		}
		if c.Template != "" {
			// Kept verbatim, surrounding white space included: an official
			// G-Eval prompt file is sent exactly as it reads.
			if !utf8.ValidString(c.Template) {
				v.add(p+".template", "not valid UTF-8")
			} else if msg := checkTemplate(c.Template); msg != "" {
				v.add(p+".template", "%s", msg)
			}
		}
	}
	if len(r.Tasks) == 0 {
		v.add("tasks", "no task prompt: add a [tasks.KIND] table, KIND one of %s", strings.Join(TaskKinds, ", "))
	}
	for _, k := range r.TaskNames() {
		v.rubricTask("tasks."+k, k, r.Kind, r.Tasks[k])
	}
	if len(v.errs) == 0 {
		return nil
	}
	return v.errs
}

// checkTemplate returns what is wrong with a G-Eval prompt template, or "".
func checkTemplate(t string) string {
	if !strings.Contains(t, TemplateSummary) {
		return "template has no " + TemplateSummary + " placeholder for the candidate"
	}
	rest := strings.NewReplacer(TemplateDocument, "", TemplateSummary, "").Replace(t)
	if i := strings.Index(rest, "{{"); i >= 0 {
		if j := strings.Index(rest[i:], "}}"); j >= 0 && j < 60 {
			return fmt.Sprintf("unknown placeholder %q: use %s and %s", rest[i:i+j+2], TemplateDocument, TemplateSummary)
		}
	}
	return ""
}

func (v *validator) rubricTask(p, task, kind string, t RubricTask) {
	if !knownTask(task) {
		v.add(p, "unknown task kind %q: use one of %s", task, strings.Join(TaskKinds, ", "))
	}
	if kind == RubricSAJA {
		v.text(p+".system", t.System)
	} else {
		v.optText(p+".system", t.System)
	}
	v.optText(p+".source_label", t.SourceLabel)
	v.text(p+".candidate_label", t.CandidateLabel)
	v.optText(p+".task_label", t.TaskLabel)
	v.text(p+".prompt", t.Prompt)
	v.optText(p+".criteria_label", t.CriteriaLabel)
	v.optText(p+".steps_label", t.StepsLabel)
	v.text(p+".answer", t.Answer)
	switch {
	case kind == RubricSAJA && t.Answer != "" && !strings.Contains(t.Answer, PlaceholderFormat):
		v.add(p+".answer", "has no %s placeholder for the JSON answer shape", PlaceholderFormat)
	case kind == RubricGEval && t.Answer != "" && !strings.Contains(t.Answer, PlaceholderCriterion):
		v.add(p+".answer", "has no %s placeholder for the criterion's label", PlaceholderCriterion)
	}
	if kind == RubricSAJA && t.StepsLabel != "" {
		v.add(p+".steps_label", "evaluation steps are for G-Eval rubrics (kind = %q)", RubricGEval)
	}
	v.extras(p, t.Extras)
}

func knownTask(kind string) bool {
	for _, k := range TaskKinds {
		if k == kind {
			return true
		}
	}
	return false
}

// Hash returns the hex SHA-256 of a canonical encoding of the whole
// rubric, every field included (templates loaded by LoadPrompts too), each
// string length-prefixed: two rubrics have the same hash exactly when they
// are equal, so any change of wording gives a new hash while comments,
// formatting and key order do not. The encoding opens with its own
// version string, so a rubric never shares a hash with a bank.
func (r *Rubric) Hash() string {
	w := hashWriter{h: newHash()}
	w.str("prism-rubric-hash-v1")
	w.strs(r.Name, r.Description, r.Source, r.Kind)
	w.int(len(r.Criteria))
	for _, c := range r.Criteria {
		w.strs(c.Name, c.Label, c.Definition, c.Template, c.Source)
		w.scale(c.Scale)
		w.list(c.Steps)
	}
	w.int(len(r.Tasks))
	for _, k := range r.TaskNames() {
		t := r.Tasks[k]
		w.strs(k, t.System, t.SourceLabel, t.CandidateLabel, t.TaskLabel, t.Prompt, t.CriteriaLabel, t.StepsLabel, t.Answer)
		w.int(len(t.Extras))
		for _, e := range t.Extras {
			w.strs(e.Field, e.Label)
		}
	}
	return w.sum()
}

// rubricHeader opens every file MarshalRubric writes.
const rubricHeader = "# prism rubric (docs/rubrics.md). Changing any wording changes the rubric's hash.\n\n"

// Marshal writes the rubric as TOML that ParseRubric reads back to an
// equal rubric with the same hash.
func (r *Rubric) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(rubricHeader)
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Clone returns a deep copy of the rubric.
func (r *Rubric) Clone() *Rubric {
	c := *r
	if r.Criteria != nil {
		c.Criteria = make([]Criterion, len(r.Criteria))
		for i, cr := range r.Criteria {
			cr.Steps = cloneStrings(cr.Steps)
			cr.Scale = scaleCopy(cr.Scale)
			c.Criteria[i] = cr
		}
	}
	if r.Tasks != nil {
		c.Tasks = make(map[string]RubricTask, len(r.Tasks))
		for k, t := range r.Tasks {
			if t.Extras != nil {
				t.Extras = append([]Extra(nil), t.Extras...)
			}
			c.Tasks[k] = t
		}
	}
	return &c
}
