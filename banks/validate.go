package banks

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prism-eval/prism/model"
)

// TaskKinds are the task kinds a bank may define prompts for.
var TaskKinds = []string{model.TaskNewsSummary, model.TaskStory, model.TaskDialogue, model.TaskAnswer, model.TaskGeneric}

// scaleLimit bounds scale ends so that rendered scales stay readable.
const scaleLimit = 1_000_000

// Validate checks the bank and returns Errors (with Field set, File and
// Line empty) or nil. Rules: a valid name for the bank and for every
// attribute, neutral and context probe (see ValidName), unique within its
// kind; non-empty wording without leading or trailing white space (it
// would show as doubled or stray spaces in the prompt); every template
// contains "[clause]"; every attribute has at least one wording of each
// sign, explicit or from templates; at least one task, each of a known
// kind, with a system message, a prompt and an answer containing
// "[format]"; a scale with min < max; anchors inside the scale, each with
// from ≤ to and a label, in increasing order without overlap.
func (b *Bank) Validate() error {
	var v validator
	v.name("name", b.Name)
	v.optText("description", b.Description)
	v.optText("source", b.Source)
	for i, t := range b.Templates.Plus {
		v.template(fmt.Sprintf("templates.plus[%d]", i), t)
	}
	for i, t := range b.Templates.Minus {
		v.template(fmt.Sprintf("templates.minus[%d]", i), t)
	}
	seen := map[string]bool{}
	for i, a := range b.Attributes {
		p := fmt.Sprintf("attributes[%d]", i)
		v.unique(p+".name", a.Name, seen)
		v.text(p+".clause", a.Clause)
		v.optText(p+".source", a.Source)
		for j, w := range a.Plus {
			v.text(fmt.Sprintf("%s.plus[%d]", p, j), w)
		}
		for j, w := range a.Minus {
			v.text(fmt.Sprintf("%s.minus[%d]", p, j), w)
		}
		if len(a.Plus) == 0 && len(b.Templates.Plus) == 0 {
			v.add(p+".plus", "no + wording: give plus = [...] or templates.plus")
		}
		if len(a.Minus) == 0 && len(b.Templates.Minus) == 0 {
			v.add(p+".minus", "no − wording: give minus = [...] or templates.minus")
		}
	}
	seen = map[string]bool{}
	for i, n := range b.Neutrals {
		p := fmt.Sprintf("neutrals[%d]", i)
		v.unique(p+".name", n.Name, seen)
		v.text(p+".text", n.Text)
		v.optText(p+".source", n.Source)
	}
	seen = map[string]bool{}
	for i, c := range b.ContextProbes {
		p := fmt.Sprintf("context_probes[%d]", i)
		v.unique(p+".name", c.Name, seen)
		v.text(p+".text", c.Text)
		v.optText(p+".source", c.Source)
	}
	b.validateLevels(&v)
	if len(b.Tasks) == 0 {
		v.add("tasks", "no task prompt: add a [tasks.KIND] table, KIND one of %s", strings.Join(TaskKinds, ", "))
	}
	for _, k := range b.TaskNames() {
		v.task("tasks."+k, k, b.Tasks[k])
	}
	if len(v.errs) == 0 {
		return nil
	}
	return v.errs
}

type validator struct{ errs Errors }

func (v *validator) add(field, format string, args ...any) {
	v.errs = append(v.errs, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) name(field, s string) {
	if !ValidName(s) {
		v.add(field, "%q is not a valid name: %s", s, model.NameRule)
	}
}

func (v *validator) unique(field, s string, seen map[string]bool) {
	v.name(field, s)
	if seen[s] {
		v.add(field, "duplicate name %q", s)
	}
	seen[s] = true
}

// text checks a wording that must be present.
func (v *validator) text(field, s string) {
	if strings.TrimSpace(s) == "" {
		v.add(field, "empty")
		return
	}
	v.optText(field, s)
}

// optText checks a wording that may be empty.
func (v *validator) optText(field, s string) {
	if s == "" {
		return
	}
	if !utf8.ValidString(s) {
		v.add(field, "not valid UTF-8")
		return
	}
	r0, _ := utf8.DecodeRuneInString(s)
	r1, _ := utf8.DecodeLastRuneInString(s)
	if unicode.IsSpace(r0) || unicode.IsSpace(r1) {
		v.add(field, "starts or ends with white space (a multi-line string keeps its newlines; end the opening line with \\ to trim)")
	}
}

func (v *validator) template(field, s string) {
	v.text(field, s)
	if s != "" && !strings.Contains(s, PlaceholderClause) {
		v.add(field, "template has no %s placeholder", PlaceholderClause)
	}
}

func (v *validator) task(p, kind string, t Task) {
	known := false
	for _, k := range TaskKinds {
		known = known || k == kind
	}
	if !known {
		v.add(p, "unknown task kind %q: use one of %s", kind, strings.Join(TaskKinds, ", "))
	}
	v.text(p+".system", t.System)
	v.optText(p+".source_label", t.SourceLabel)
	v.optText(p+".candidate_label", t.CandidateLabel)
	v.optText(p+".task_label", t.TaskLabel)
	v.text(p+".prompt", t.Prompt)
	v.optText(p+".batch_prompt", t.BatchPrompt)
	v.optText(p+".scale_text", t.ScaleText)
	v.text(p+".answer", t.Answer)
	v.optText(p+".batch_answer", t.BatchAnswer)
	if t.Answer != "" && !strings.Contains(t.Answer, PlaceholderFormat) {
		v.add(p+".answer", "has no %s placeholder for the JSON answer shape", PlaceholderFormat)
	}
	if t.BatchAnswer != "" && !strings.Contains(t.BatchAnswer, PlaceholderFormat) {
		v.add(p+".batch_answer", "has no %s placeholder for the JSON answer shape", PlaceholderFormat)
	}
	if t.CandidateLabel == "" {
		v.add(p+".candidate_label", "empty")
	}
	v.extras(p, t.Extras)
	v.scale(p+".scale", t.Scale)
}

// scale checks a score scale at field sp: ends within ±scaleLimit, min <
// max (at least two points), anchors inside the scale, each with from ≤ to
// and a label, in increasing order without overlap.
// extras checks a task's extra fields (p: the task's path): each with a
// field and a label, no field twice.
func (v *validator) extras(p string, extras []Extra) {
	seen := map[string]bool{}
	for i, e := range extras {
		ep := fmt.Sprintf("%s.extras[%d]", p, i)
		v.text(ep+".field", e.Field)
		v.text(ep+".label", e.Label)
		if seen[e.Field] {
			v.add(ep+".field", "duplicate extra field %q", e.Field)
		}
		seen[e.Field] = true
	}
}

func (v *validator) scale(sp string, s Scale) {
	if s.Min < -scaleLimit || s.Max > scaleLimit {
		v.add(sp, "scale %d–%d is outside ±%d", s.Min, s.Max, scaleLimit)
	}
	if s.Min >= s.Max {
		v.add(sp+".min", "min %d must be below max %d", s.Min, s.Max)
	}
	prev := s.Min - 1
	for i, a := range s.Anchors {
		ap := fmt.Sprintf("%s.anchors[%d]", sp, i)
		switch {
		case a.From > a.To:
			v.add(ap, "from %d is above to %d", a.From, a.To)
		case a.From < s.Min || a.To > s.Max:
			v.add(ap, "%d–%d is outside the scale %d–%d", a.From, a.To, s.Min, s.Max)
		case a.From <= prev:
			v.add(ap, "starts at %d, not after the previous anchor's end %d", a.From, prev)
		}
		v.text(ap+".label", a.Label)
		prev = a.To
	}
}
