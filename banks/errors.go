package banks

import (
	"fmt"
	"strings"
)

// FieldError is one problem in a bank file: the file, the line and column
// (0 when unknown; printed file:line:col: like every loader's errors) and
// the field path, such as "attributes[2].clause" (indices
// from 0) or "tasks.story.scale.min".
type FieldError struct {
	File   string
	Line   int
	Column int
	Field  string
	Msg    string
}

func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		// One shape everywhere, file:line:col; column 1 stands for the
		// line as a whole when the parser gives none.
		fmt.Fprintf(&b, ":%d:%d", e.Line, max(1, e.Column))
	}
	if e.Field != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Field)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors lists every problem found in a bank, in file order.
type Errors []*FieldError

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}
