package banks

import (
	"embed"
	"fmt"
	"path"
	"strings"
	"sync"
)

//go:embed rubrics/*.toml
var rubricFS embed.FS

// rubricOrder is the order BuiltinRubrics returns.
var rubricOrder = []string{"saja-broad", "saja-granular", "geval-summeval"}

var (
	rubricOnce    sync.Once
	builtinRubric []*Rubric
	rubricFiles   map[string][]byte
)

func loadRubrics() {
	rubricFiles = map[string][]byte{}
	for _, name := range rubricOrder {
		file := path.Join("rubrics", name+".toml")
		data, err := rubricFS.ReadFile(file)
		if err != nil {
			panic("banks: built-in rubric missing: " + file)
		}
		r, err := ParseRubric(data, file)
		if err != nil {
			panic("banks: built-in rubric invalid: " + err.Error())
		}
		if r.Name != name {
			panic("banks: built-in rubric " + file + " is named " + r.Name)
		}
		rubricFiles[name] = data
		builtinRubric = append(builtinRubric, r)
	}
}

// BuiltinRubrics returns fresh copies of the built-in rubrics, all written
// for prism: saja-broad, saja-granular and geval-summeval
// (docs/rubrics.md). It panics only if an embedded file is invalid, which
// the package tests rule out.
func BuiltinRubrics() []*Rubric {
	rubricOnce.Do(loadRubrics)
	out := make([]*Rubric, len(builtinRubric))
	for i, r := range builtinRubric {
		out[i] = r.Clone()
	}
	return out
}

// BuiltinRubric returns a fresh copy of the built-in rubric with this name.
func BuiltinRubric(name string) (*Rubric, error) {
	rubricOnce.Do(loadRubrics)
	for _, r := range builtinRubric {
		if r.Name == name {
			return r.Clone(), nil
		}
	}
	return nil, fmt.Errorf("banks: no built-in rubric %q (built-in: %s)", name, strings.Join(rubricOrder, ", "))
}

// BuiltinRubricFile returns the embedded TOML file of a built-in rubric,
// comments included.
func BuiltinRubricFile(name string) ([]byte, error) {
	rubricOnce.Do(loadRubrics)
	data, ok := rubricFiles[name]
	if !ok {
		return nil, fmt.Errorf("banks: no built-in rubric %q (built-in: %s)", name, strings.Join(rubricOrder, ", "))
	}
	return append([]byte(nil), data...), nil
}
