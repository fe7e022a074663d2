package banks

import (
	"bytes"
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/prism-eval/prism/model"
)

// Parse reads a bank from TOML and validates it. file names the source in
// errors. On failure it returns Errors, each naming file:line and the
// field path: TOML syntax and type errors, unknown keys (exact spelling
// required) and every rule of Validate.
func Parse(data []byte, file string) (*Bank, error) {
	if len(data) > MaxFileSize {
		return nil, &model.SizeError{File: file, Limit: MaxFileSize, What: fileKind}
	}
	var b Bank
	errs := decodeFile(data, file, &b, schema, func() error {
		b.normalize()
		return b.Validate()
	})
	if len(errs) > 0 {
		return nil, errs
	}
	return &b, nil
}

// decodeFile decodes a TOML file into v and checks it: TOML syntax and type
// errors, keys not in sch (exact spelling required), then check's Errors
// (run only when decoding succeeded), each given the file and the line and
// column of its field. The errors come sorted by line; none means v is
// valid.
func decodeFile(data []byte, file string, v any, sch map[string]any, check func() error) Errors {
	var deep *model.DepthError
	if errors.As(model.CheckTOMLDepth(data, file), &deep) {
		return Errors{&FieldError{File: file, Line: deep.Line, Column: deep.Column, Msg: deep.Msg()}}
	}
	md, err := toml.Decode(string(data), v)
	if err != nil {
		return Errors{decodeError(err, file)}
	}
	keys := scanKeys(data)
	var errs Errors
	reported := map[string]bool{}
	unknown := func(k toml.Key) {
		bare := k.String()
		if reported[bare] {
			return
		}
		reported[bare] = true
		found := false
		for _, kl := range keys {
			if kl.bare == bare {
				errs = append(errs, &FieldError{File: file, Line: kl.line, Column: kl.col, Field: kl.path, Msg: "unknown key"})
				found = true
			}
		}
		if !found {
			errs = append(errs, &FieldError{File: file, Field: bare, Msg: "unknown key"})
		}
	}
	for _, k := range md.Keys() {
		if !knownKey(sch, k) {
			unknown(k)
		}
	}
	for _, k := range md.Undecoded() {
		unknown(k)
	}
	if err := check(); err != nil {
		for _, fe := range err.(Errors) {
			fe.File = file
			fe.Line, fe.Column = lineOf(keys, fe.Field)
			errs = append(errs, fe)
		}
	}
	sortByLine(errs)
	return errs
}

// schema lists the allowed keys; "*" matches any task kind (checked by
// Validate) and a nested map is a table.
var schema = map[string]any{
	"name": nil, "description": nil, "source": nil,
	"templates":      map[string]any{"plus": nil, "minus": nil},
	"attributes":     map[string]any{"name": nil, "clause": nil, "plus": nil, "minus": nil, "source": nil},
	"neutrals":       map[string]any{"name": nil, "text": nil, "source": nil},
	"context_probes": map[string]any{"name": nil, "text": nil, "source": nil},
	"levels":         map[string]any{"slightly_plus": nil, "slightly_minus": nil, "much_plus": nil, "much_minus": nil, "control": nil, "source": nil},
	"joint":          map[string]any{"templates": nil, "pairs": nil, "source": nil},
	"tasks": map[string]any{"*": map[string]any{
		"system": nil, "source_label": nil, "candidate_label": nil, "task_label": nil,
		"prompt": nil, "batch_prompt": nil, "scale_text": nil, "answer": nil, "batch_answer": nil,
		"scale":  map[string]any{"min": nil, "max": nil, "anchors": map[string]any{"from": nil, "to": nil, "label": nil}},
		"extras": map[string]any{"field": nil, "label": nil},
	}},
}

// knownKey reports whether k, spelled exactly, is in the schema sch. The toml
// package matches field names case-insensitively; requiring the exact
// spelling keeps "Clause" and "clause" from silently overwriting each other.
func knownKey(sch map[string]any, k toml.Key) bool {
	level := sch
	for i, seg := range k {
		next, ok := level[seg]
		if !ok {
			next, ok = level["*"]
		}
		if !ok {
			return false
		}
		if i == len(k)-1 {
			return true
		}
		m, isTable := next.(map[string]any)
		if !isTable {
			return false
		}
		level = m
	}
	return true
}

var reDecodeErr = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// decodeError turns a toml error into a FieldError with its line.
func decodeError(err error, file string) *FieldError {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &FieldError{File: file, Line: pe.Position.Line, Column: pe.Position.Col, Field: pe.LastKey, Msg: pe.Message}
	}
	msg := err.Error()
	if m := reDecodeErr.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &FieldError{File: file, Line: line, Field: m[2], Msg: m[3]}
	}
	return &FieldError{File: file, Msg: strings.TrimPrefix(msg, "toml: ")}
}

// sortByLine orders errors by line, those without a line last.
func sortByLine(es Errors) {
	key := func(e *FieldError) int {
		if e.Line == 0 {
			return int(^uint(0) >> 1)
		}
		return e.Line
	}
	// Insertion sort: stable, and bank files have few errors.
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && key(es[j]) < key(es[j-1]); j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// normalize makes empty lists nil so that a parsed bank and one built in
// code compare equal whatever the file spelled ("plus = []" or nothing).
func (b *Bank) normalize() {
	b.Templates.Plus = nilIfEmpty(b.Templates.Plus)
	b.Templates.Minus = nilIfEmpty(b.Templates.Minus)
	if len(b.Attributes) == 0 {
		b.Attributes = nil
	}
	for i := range b.Attributes {
		b.Attributes[i].Plus = nilIfEmpty(b.Attributes[i].Plus)
		b.Attributes[i].Minus = nilIfEmpty(b.Attributes[i].Minus)
	}
	if len(b.Neutrals) == 0 {
		b.Neutrals = nil
	}
	b.normalizeLevels()
	if len(b.ContextProbes) == 0 {
		b.ContextProbes = nil
	}
	if len(b.Tasks) == 0 {
		b.Tasks = nil
	}
	for k, t := range b.Tasks {
		if len(t.Scale.Anchors) == 0 {
			t.Scale.Anchors = nil
		}
		if len(t.Extras) == 0 {
			t.Extras = nil
		}
		b.Tasks[k] = t
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// fileHeader opens every file Marshal writes; comments do not change the
// bank's hash.
const fileHeader = "# prism probe bank. Edit the wording, then check it with: prism bank validate FILE\n" +
	"# Every key is described in the README (Probe banks). Changing any wording changes the bank's hash.\n\n"

// Marshal writes the bank as TOML that Parse reads back to an equal bank
// with the same hash.
func (b *Bank) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(fileHeader)
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
