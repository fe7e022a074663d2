package banks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/model"
)

// Render returns the exact request for one candidate of context c under
// condition cond, using the bank's prompt for task (a model.Task* kind).
//
// The system message is Task.System, followed by a space and the
// condition's instruction when it has one (paper Table 1: only the added
// system instruction changes between conditions). The user message is,
// separated by blank lines:
//
//	SOURCE_LABEL:\nSOURCE            (omitted when the source is empty)
//	EXTRA_LABEL:\nEXTRA              (each Task.Extras field present in c.Extra)
//	CANDIDATE_LABEL:\nCANDIDATE
//	TASK_LABEL:\nPROMPT SCALE_TEXT ANSWER
//
// with "[scale]", "[anchors]" and "[format]" filled from Task.Scale; the
// single-candidate format is {"score": <int MIN–MAX>}. Render returns an
// error when the bank has no such task or cond is not one of its
// conditions.
func (b *Bank) Render(task string, c model.Context, cand model.Candidate, cond Condition) (Request, error) {
	t, err := b.prepare(task, cond)
	if err != nil {
		return Request{}, err
	}
	return render(b.Hash(), t, c, cand, cond), nil
}

func render(hash string, t Task, c model.Context, cand model.Candidate, cond Condition) Request {
	return renderWith(hash, t, c, cand, cond, userMessage(t, taskText(t), c, cand))
}

// taskText is the text of the user message's task section: the prompt,
// the scale and the answer format. It depends on the task alone.
func taskText(t Task) string {
	return joinSentences(t.Prompt, scaleText(t), strings.ReplaceAll(t.Answer, PlaceholderFormat, singleFormat(t.Scale)))
}

// userMessage is the user message of cand in c, with task the task's
// taskText: the same under every condition (only the system message
// changes between them).
func userMessage(t Task, task string, c model.Context, cand model.Candidate) string {
	var u strings.Builder
	u.Grow(len(c.Source) + len(cand.Text) + len(task) + 256) // labels and any extras
	writeContext(&u, t, c)
	section(&u, t.CandidateLabel, cand.Text)
	section(&u, t.TaskLabel, task)
	return u.String()
}

// userMessageLen is len(userMessage(t, task, c, cand)), counted without
// building the message.
func userMessageLen(t Task, task string, c model.Context, cand model.Candidate) int {
	var u lenCounter
	writeContext(&u, t, c)
	section(&u, t.CandidateLabel, cand.Text)
	section(&u, t.TaskLabel, task)
	return u.Len()
}

// renderWith is render with the user message already rendered.
func renderWith(hash string, t Task, c model.Context, cand model.Candidate, cond Condition, user string) Request {
	return Request{
		BankHash:      hash,
		Probe:         cond.Probe,
		Wording:       cond.Wording,
		Instruction:   cond.Instruction,
		ContextID:     c.ID,
		CandidateID:   cand.ID,
		Messages:      messages(t, cond, user),
		Scale:         scaleCopy(t.Scale),
		Source:        c.Source,
		CandidateText: cand.Text,
	}
}

// RenderBatch returns one request that shows all of cands, in the given
// order, for batched pointwise scoring (paper §B.6). Candidate k (from 1)
// is shown under "CANDIDATE_LABEL k:" and the answer format asks for one
// score per label: {"scores": {"1": <int MIN–MAX>, "2": …}}. Task.BatchPrompt
// and Task.BatchAnswer replace Prompt and Answer when set. Candidate ids
// must be distinct and non-empty; they go to Request.BatchIDs, never into
// the prompt.
func (b *Bank) RenderBatch(task string, c model.Context, cands []model.Candidate, cond Condition) (Request, error) {
	t, err := b.prepare(task, cond)
	if err != nil {
		return Request{}, err
	}
	return renderBatch(b.Hash(), t, c, cands, cond)
}

func renderBatch(hash string, t Task, c model.Context, cands []model.Candidate, cond Condition) (Request, error) {
	if len(cands) == 0 {
		return Request{}, fmt.Errorf("banks: batch for context %q has no candidates", c.ID)
	}
	ids := make([]string, len(cands))
	texts := make([]string, len(cands))
	labels := make([]string, len(cands))
	seen := make(map[string]bool, len(cands))
	var u strings.Builder
	writeContext(&u, t, c)
	for i, cand := range cands {
		if cand.ID == "" || seen[cand.ID] {
			return Request{}, fmt.Errorf("banks: batch for context %q: candidate %d has an empty or repeated id %q", c.ID, i+1, cand.ID)
		}
		seen[cand.ID] = true
		ids[i], texts[i], labels[i] = cand.ID, cand.Text, strconv.Itoa(i+1)
		section(&u, t.CandidateLabel+" "+labels[i], cand.Text)
	}
	prompt, answer := t.Prompt, t.Answer
	if t.BatchPrompt != "" {
		prompt = t.BatchPrompt
	}
	if t.BatchAnswer != "" {
		answer = t.BatchAnswer
	}
	section(&u, t.TaskLabel, joinSentences(prompt, scaleText(t), strings.ReplaceAll(answer, PlaceholderFormat, batchFormat(t.Scale, labels))))
	return Request{
		BankHash:    hash,
		Probe:       cond.Probe,
		Wording:     cond.Wording,
		Instruction: cond.Instruction,
		ContextID:   c.ID,
		Messages:    messages(t, cond, u.String()),
		Scale:       scaleCopy(t.Scale),
		Source:      c.Source,
		BatchIDs:    ids,
		BatchTexts:  texts,
		BatchLabels: labels,
	}, nil
}

// prepare finds the task and checks that cond is one of the bank's own
// conditions, so a request's BankHash always names the wording it carries.
func (b *Bank) prepare(task string, cond Condition) (Task, error) {
	t, ok := b.Tasks[task]
	if !ok {
		return Task{}, b.noTask(task)
	}
	got, err := b.Condition(cond.Probe, cond.Wording)
	if err != nil {
		return Task{}, err
	}
	if got.Instruction != cond.Instruction {
		return Task{}, fmt.Errorf("banks: condition %s wording %d does not carry bank %q's instruction", cond.Probe, cond.Wording, b.Name)
	}
	return t, nil
}

func (b *Bank) noTask(task string) error {
	return fmt.Errorf("banks: bank %q has no task %q (it has %s)", b.Name, task, strings.Join(b.TaskNames(), ", "))
}

// scaleCopy gives each request its own anchors, so a caller that edits a
// request cannot change the bank (or a Renderer's frozen copy).
func scaleCopy(s Scale) Scale {
	if s.Anchors != nil {
		s.Anchors = append([]ScaleAnchor(nil), s.Anchors...)
	}
	return s
}

func messages(t Task, cond Condition, user string) []Message {
	sys := t.System
	if cond.Instruction != "" {
		sys += " " + cond.Instruction
	}
	return []Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}
}

// systemLen is the length of messages' system message under cond.
func systemLen(t Task, cond Condition) int {
	if cond.Instruction != "" {
		return len(t.System) + 1 + len(cond.Instruction)
	}
	return len(t.System)
}

// textWriter is what section writes to: a strings.Builder, or a
// lenCounter that only counts.
type textWriter interface {
	Len() int
	WriteString(string) (int, error)
}

// lenCounter counts the bytes written to it: the length of a message
// without building it (Renderer.Lengths).
type lenCounter struct{ n int }

func (c *lenCounter) Len() int { return c.n }

func (c *lenCounter) WriteString(s string) (int, error) {
	c.n += len(s)
	return len(s), nil
}

func writeContext[W textWriter](u W, t Task, c model.Context) {
	if c.Source != "" {
		section(u, t.SourceLabel, c.Source)
	}
	for _, e := range t.Extras {
		if v := c.Extra[e.Field]; v != "" {
			section(u, e.Label, v)
		}
	}
}

// section appends "LABEL:\nTEXT", separated from what precedes it by a
// blank line; an empty label writes the text alone.
func section[W textWriter](u W, label, text string) {
	if u.Len() > 0 {
		u.WriteString("\n\n")
	}
	if label != "" {
		u.WriteString(label)
		u.WriteString(":\n")
	}
	u.WriteString(text)
}

func joinSentences(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

// scaleText fills "[scale]" and "[anchors]" in Task.ScaleText.
func scaleText(t Task) string {
	if t.ScaleText == "" {
		return ""
	}
	return strings.NewReplacer(PlaceholderScale, t.Scale.Range(), PlaceholderAnchors, t.Scale.AnchorText()).Replace(t.ScaleText)
}

// Range is the scale written "MIN–MAX" with an en dash (Table 1: "1–10").
func (s Scale) Range() string { return span(s.Min, s.Max) }

// AnchorText lists the anchors as Table 1 does: "1–2 = very poor, 3–4 =
// poor, …"; a one-point anchor is written "5 = fine".
func (s Scale) AnchorText() string {
	parts := make([]string, len(s.Anchors))
	for i, a := range s.Anchors {
		parts[i] = span(a.From, a.To) + " = " + a.Label
	}
	return strings.Join(parts, ", ")
}

func span(a, b int) string {
	if a == b {
		return strconv.Itoa(a)
	}
	return strconv.Itoa(a) + "–" + strconv.Itoa(b)
}

// singleFormat is the JSON shape of a single-candidate answer.
func singleFormat(s Scale) string { return `{"score": <int ` + s.Range() + `>}` }

// batchFormat is the JSON shape of a batched answer, one key per label.
func batchFormat(s Scale, labels []string) string {
	var b strings.Builder
	b.WriteString(`{"scores": {`)
	for i, l := range labels {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(l))
		b.WriteString(": <int " + s.Range() + ">")
	}
	b.WriteString("}}")
	return b.String()
}
