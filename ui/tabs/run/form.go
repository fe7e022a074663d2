package run

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// fieldKind says how a form field is edited: text and numbers in a text
// input, choices by cycling with enter.
type fieldKind int

const (
	fieldText fieldKind = iota
	fieldInt
	fieldChoice
)

// formField is one row of the judge form.
type formField struct {
	key     string // the judge config / flag name, used in errors
	label   string
	kind    fieldKind
	choices []string
	value   string
	hint    string
}

// Field keys of the judge form (the judge config and flag names): what
// Tab.Field and Tab.Value name a field by.
const (
	FieldBackend = "backend"
	FieldModel   = "model"
	FieldBaseURL = "base_url"
	FieldKeyEnv  = "api_key_env"
	FieldMode    = "mode"
	FieldConc    = "concurrency"
	FieldRPM     = "rpm"
	FieldTPM     = "tpm"
	FieldRepeats = "repeats"
	FieldName    = "judge_name"
	FieldStudy   = "study"
	FieldSamples = "samples"
)

// studyBank is the study field's choice that runs the Bank tab's bank;
// its other choices are the built-in rubrics (banks.BuiltinRubrics).
const studyBank = "bank"

// studyChoices are the study field's choices: the bank, then the
// built-in rubrics by name.
func studyChoices() []string {
	out := []string{studyBank}
	for _, r := range banks.BuiltinRubrics() {
		out = append(out, r.Name)
	}
	return out
}

// runForm is the judge configuration of the Run tab. Values are kept as
// text so a half-typed number is never lost; spec parses and validates
// them, naming the field at fault.
type runForm struct {
	fields  []formField
	cursor  int
	editing bool
	input   textinput.Model
	base    judge.Config // fields the form does not show (timeouts, retries)
	// samples is G-Eval's N field, shown (after the study field) only
	// while a G-Eval rubric is chosen; it keeps its value while hidden.
	samples formField
}

func newRunForm(cfg judge.Config) runForm {
	if cfg.Backend == "" {
		cfg = judge.Defaults()
	}
	env := cfg.APIKeyEnv
	if env == "" {
		env = "OPENAI_API_KEY"
	}
	f := runForm{base: cfg, input: newFieldInput()}
	f.fields = []formField{
		{key: FieldBackend, label: "backend", kind: fieldChoice, choices: []string{judge.BackendOffline, judge.BackendOpenAI}, value: cfg.Backend},
		{key: FieldModel, label: "model", kind: fieldText, value: cfg.Model, hint: "e.g. gpt-4o-mini"},
		{key: FieldBaseURL, label: "base URL", kind: fieldText, value: cfg.BaseURL, hint: "default: api.openai.com"},
		{key: FieldKeyEnv, label: "key env", kind: fieldText, value: env, hint: "variable holding the key"},
		{key: FieldMode, label: "score mode", kind: fieldChoice, choices: []string{string(judge.ModeInteger), string(judge.ModeExpected)}, value: string(cfg.Mode)},
		{key: FieldConc, label: "concurrency", kind: fieldInt, value: "8"},
		{key: FieldRPM, label: "rpm limit", kind: fieldInt, value: "0", hint: "0: none"},
		{key: FieldTPM, label: "tpm limit", kind: fieldInt, value: "0", hint: "0: none"},
		{key: FieldRepeats, label: "repeats", kind: fieldInt, value: strconv.Itoa(max(cfg.Repeats, 1))},
		{key: FieldName, label: "judge name", kind: fieldText, value: "", hint: "default: backend or model"},
		{key: FieldStudy, label: "study", kind: fieldChoice, choices: studyChoices(), value: studyBank},
	}
	f.samples = formField{key: FieldSamples, label: "samples", kind: fieldInt, value: strconv.Itoa(engine.DefaultGEvalSamples), hint: "G-Eval's N"}
	return f
}

// Rubric is the built-in rubric the study field chooses, or nil for the
// bank.
func (f *runForm) Rubric() *banks.Rubric {
	name := f.get(FieldStudy)
	if name == studyBank || name == "" {
		return nil
	}
	r, err := banks.BuiltinRubric(name)
	if err != nil {
		return nil // the choices are the built-ins
	}
	return r
}

// Samples parses G-Eval's N (the samples field, which only a G-Eval
// rubric shows; 0 otherwise).
func (f *runForm) Samples() (int, error) {
	if r := f.Rubric(); r == nil || r.Kind != banks.RubricGEval {
		return 0, nil
	}
	return f.intField(FieldSamples, 1)
}

// syncFields shows the samples field right after the study field while a
// G-Eval rubric is chosen, and hides it (keeping its value) otherwise.
func (f *runForm) syncFields() {
	at := -1
	for i, fl := range f.fields {
		if fl.key == FieldSamples {
			at = i
		}
	}
	r := f.Rubric()
	want := r != nil && r.Kind == banks.RubricGEval
	switch {
	case want && at < 0:
		for i, fl := range f.fields {
			if fl.key == FieldStudy {
				f.fields = slices.Insert(f.fields, i+1, f.samples)
				break
			}
		}
	case !want && at >= 0:
		f.samples = f.fields[at]
		f.fields = slices.Delete(f.fields, at, at+1)
		f.cursor = min(f.cursor, len(f.fields)-1)
	}
}

// newFieldInput is the form's text input (widgets.FieldInput).
func newFieldInput() textinput.Model { return widgets.FieldInput() }

func (f *runForm) get(key string) string {
	for _, fl := range f.fields {
		if fl.key == key {
			return strings.TrimSpace(fl.value)
		}
	}
	return ""
}

func (f *runForm) set(key, v string) {
	for i := range f.fields {
		if f.fields[i].key == key {
			f.fields[i].value = v
		}
	}
}

// SetWidth fits the text input to a form w cells wide: the value column
// less a cell for the cursor after the text.
func (f *runForm) SetWidth(w int) {
	f.input.SetWidth(max(w-15, 4))
	f.input.SetCursor(f.input.Position()) // scrolls the value to the cursor
}

// Move moves the field cursor.
func (f *runForm) Move(delta int) {
	f.cursor = min(max(f.cursor+delta, 0), len(f.fields)-1)
}

// Activate edits the selected field: a choice cycles to its next value
// (changed reports it), any other field opens the text input.
func (f *runForm) Activate() (changed bool, cmd tea.Cmd) {
	fl := &f.fields[f.cursor]
	if fl.kind == fieldChoice {
		return f.Cycle(1), nil
	}
	f.editing = true
	f.input.SetValue(fl.value)
	f.input.CursorEnd()
	return false, f.input.Focus()
}

// OnChoice says whether the selected field is a choice (drawn ‹value›).
func (f *runForm) OnChoice() bool { return f.fields[f.cursor].kind == fieldChoice }

// Cycle moves the selected choice field delta values on, around its
// choices (← and → as its ‹…› suggest, enter forward); it reports
// whether the field is a choice.
func (f *runForm) Cycle(delta int) bool {
	fl := &f.fields[f.cursor]
	if fl.kind != fieldChoice {
		return false
	}
	i := 0
	for j, c := range fl.choices {
		if c == fl.value {
			i = j
		}
	}
	n := len(fl.choices)
	fl.value = fl.choices[((i+delta)%n+n)%n]
	f.syncFields()
	return true
}

// Commit ends editing and keeps the typed value.
func (f *runForm) Commit() {
	f.fields[f.cursor].value = f.input.Value()
	f.editing = false
	f.input.Blur()
}

// Abort ends editing and drops the typed value.
func (f *runForm) Abort() {
	f.editing = false
	f.input.Blur()
}

// Update passes a message to the text input while editing.
func (f *runForm) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	f.input, cmd = f.input.Update(msg)
	return cmd
}

// Config parses the form into a judge config and limits. Errors name the
// form field.
func (f *runForm) Config() (judge.Config, engine.Limits, int, error) {
	cfg := f.base
	cfg.Backend = f.get(FieldBackend)
	cfg.Model = f.get(FieldModel)
	cfg.BaseURL = f.get(FieldBaseURL)
	cfg.APIKeyEnv = f.get(FieldKeyEnv)
	cfg.Mode = judge.Mode(f.get(FieldMode))
	cfg.Repeats = 1 // the engine sends each repeat as its own request
	var lim engine.Limits
	ints := []struct {
		key string
		dst *int
		min int
	}{{FieldConc, &lim.Concurrency, 1}, {FieldRPM, &lim.RPM, 0}, {FieldTPM, &lim.TPM, 0}}
	for _, it := range ints {
		n, err := f.intField(it.key, it.min)
		if err != nil {
			return cfg, lim, 0, err
		}
		*it.dst = n
	}
	repeats, err := f.intField(FieldRepeats, 1)
	if err != nil {
		return cfg, lim, 0, err
	}
	if cfg.Backend == judge.BackendOpenAI && cfg.APIKeyEnv == "OPENAI_API_KEY" {
		cfg.APIKeyEnv = ""
	}
	if err := cfg.Validate(); err != nil {
		return cfg, lim, 0, err
	}
	return cfg, lim, repeats, nil
}

func (f *runForm) intField(key string, least int) (int, error) {
	s := f.get(key)
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a whole number", key, s)
	}
	if n < least {
		return 0, fmt.Errorf("%s: %d, want at least %d", key, n, least)
	}
	return n, nil
}

// JudgeName is the name the answers are stored under: the form's, else the
// backend (offline) or the model, with "-expected" in expected mode, as
// prism run names them.
func (f *runForm) JudgeName(cfg judge.Config) string {
	if n := f.get(FieldName); n != "" {
		return n
	}
	return engine.DefaultJudgeName(cfg)
}

// Lines renders the form as label/value lines of width w.
func (f *runForm) Lines(st *styles.Styles, w int, focused bool) []string {
	lines := make([]string, 0, len(f.fields))
	for i, fl := range f.fields {
		val := fl.value
		switch {
		case f.editing && i == f.cursor:
			val = f.input.View()
		case fl.kind == fieldChoice:
			val = "‹" + val + "›"
		case val == "" && fl.hint != "":
			val = st.Muted.Render(fl.hint)
		case fl.key == FieldSamples && judge.Mode(f.get(FieldMode)) == judge.ModeExpected:
			// Expected mode reads one call's logprobs: N is not used.
			val = st.Muted.Render(val + " (unused in expected mode)")
		}
		row := fmt.Sprintf("%-12s %s", fl.label, val)
		if i == f.cursor && !f.editing {
			row = widgets.Fit(row, w)
			if focused {
				row = st.Selected.Render(row)
			} else {
				row = st.Cursor.Render(row)
			}
		}
		lines = append(lines, row)
	}
	return lines
}
