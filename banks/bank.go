package banks

import "github.com/prism-eval/prism/model"

// Bank is a probe bank: the attributes whose weight a probe shifts, the
// neutral clauses used as controls, the one-sided context probes, and the
// task prompt for each kind of data (docs/protocol.md §1).
type Bank struct {
	Name        string `toml:"name"`
	Description string `toml:"description,omitempty"`
	// Source says where the wording comes from ("paper Table 18", "written
	// for prism"); attributes, neutrals and probes may override it.
	Source string `toml:"source,omitempty"`

	Templates     Templates      `toml:"templates"`
	Attributes    []Attribute    `toml:"attributes,omitempty"`
	Neutrals      []Neutral      `toml:"neutrals,omitempty"`
	ContextProbes []ContextProbe `toml:"context_probes,omitempty"`
	// Levels and Joint are optional graded wordings, worded controls and
	// joint (pair) instructions for the wording diagnostics (levels.go,
	// docs/banks.md); a bank without them renders and hashes as before.
	Levels Levels `toml:"levels,omitempty"`
	Joint  Joint  `toml:"joint,omitempty"`

	// Tasks holds the task prompt per kind of data, keyed by the model.Task*
	// constants (news-summary, story, dialogue, answer, generic).
	Tasks map[string]Task `toml:"tasks"`
}

// Templates are the instruction templates of each sign; "[clause]" is
// replaced by an attribute's clause (paper §D.3).
type Templates struct {
	Plus  []string `toml:"plus,omitempty"`
	Minus []string `toml:"minus,omitempty"`
}

// Attribute is one probed attribute. Plus and Minus are explicit wordings;
// when one is empty, that sign's wordings are rendered from the bank's
// Templates. "[clause]" in an explicit wording is replaced too.
type Attribute struct {
	Name   string   `toml:"name"`
	Clause string   `toml:"clause"`
	Plus   []string `toml:"plus,omitempty"`
	Minus  []string `toml:"minus,omitempty"`
	Source string   `toml:"source,omitempty"`
}

// Neutral is a neutral clause: an instruction that should change nothing,
// used as a control and never as a regression column (docs/protocol.md §1).
type Neutral struct {
	Name   string `toml:"name"`
	Text   string `toml:"text"`
	Source string `toml:"source,omitempty"`
}

// ContextProbe is a one-sided probe, such as scoring for a particular
// reader; its column is s(x; p) − s0(x) (paper §2.1).
type ContextProbe struct {
	Name   string `toml:"name"`
	Text   string `toml:"text"`
	Source string `toml:"source,omitempty"`
}

// Task is the prompt for one kind of data. The user message is the source
// section, any extra sections, the candidate section and the task section
// (see Render for the exact layout).
type Task struct {
	System         string `toml:"system"`
	SourceLabel    string `toml:"source_label"`
	CandidateLabel string `toml:"candidate_label"`
	TaskLabel      string `toml:"task_label,omitempty"`
	Prompt         string `toml:"prompt"`
	// BatchPrompt replaces Prompt when several candidates share one call;
	// Prompt is used when it is empty.
	BatchPrompt string `toml:"batch_prompt,omitempty"`
	// ScaleText states the scale; "[scale]" becomes "MIN–MAX" and
	// "[anchors]" the anchors ("1–2 = very poor, …").
	ScaleText string `toml:"scale_text,omitempty"`
	// Answer and BatchAnswer state the output format; "[format]" becomes
	// the JSON shape of the answer.
	Answer      string  `toml:"answer"`
	BatchAnswer string  `toml:"batch_answer,omitempty"`
	Scale       Scale   `toml:"scale"`
	Extras      []Extra `toml:"extras,omitempty"`
}

// Extra shows one Context.Extra field (e.g. the knowledge fact of a
// dialogue) as its own labelled section after the source, when present.
type Extra struct {
	Field string `toml:"field"`
	Label string `toml:"label"`
}

// Placeholders replaced during rendering.
const (
	PlaceholderClause  = "[clause]"
	PlaceholderScale   = "[scale]"
	PlaceholderAnchors = "[anchors]"
	PlaceholderFormat  = "[format]"
)

// Probe name prefixes and the baseline probe (the `prism fit` CSV uses
// these names).
const (
	ProbeBaseline = "baseline"
	prefixNeutral = "neutral:"
	prefixContext = "ctx:"
)

// ValidName reports whether s is an allowed bank, attribute, neutral or
// context probe name. The rule is model.ValidName's, shared with the score
// readers and fit, so a bank's probe names are exactly the ones they accept.
func ValidName(s string) bool { return model.ValidName(s) }
