package banks

import (
	"embed"
	"fmt"
	"path"
	"strings"
	"sync"
)

//go:embed builtin/*.toml
var builtinFS embed.FS

// builtinOrder is the order Builtins returns: the paper's banks first.
var builtinOrder = []string{"quality", "style8", "style7", "story", "dialogue", "answer", "generic", "ladder"}

// builtins holds each built-in bank, parsed on first use: a command
// that names one bank (prism run --bank quality) parses that one, 1.4 ms,
// rather than all eight, 7.3 ms of its start (docs/performance.md,
// "Fixed costs").
var builtins = func() map[string]*builtinBank {
	m := make(map[string]*builtinBank, len(builtinOrder))
	for _, name := range builtinOrder {
		m[name] = &builtinBank{name: name}
	}
	return m
}()

type builtinBank struct {
	name string
	once sync.Once
	bank *Bank
	data []byte
}

// load parses the bank once; it panics only if the embedded file is
// invalid, which the package tests rule out.
func (e *builtinBank) load() *builtinBank {
	e.once.Do(func() {
		file := path.Join("builtin", e.name+".toml")
		data, err := builtinFS.ReadFile(file)
		if err != nil {
			panic("banks: built-in bank missing: " + file)
		}
		b, err := Parse(data, file)
		if err != nil {
			panic("banks: built-in bank invalid: " + err.Error())
		}
		if b.Name != e.name {
			panic("banks: built-in bank " + file + " is named " + b.Name)
		}
		e.bank, e.data = b, data
	})
	return e
}

func builtinNotFound(name string) error {
	return fmt.Errorf("banks: no built-in bank %q (built-in: %s)", name, strings.Join(builtinOrder, ", "))
}

// Builtins returns fresh copies of all built-in banks in a stable order:
// quality, style8, style7 (paper Table 18 and §A.2), then story, dialogue,
// answer and generic (written for prism). It panics only if an embedded
// bank file is invalid, which the package tests rule out.
func Builtins() []*Bank {
	out := make([]*Bank, len(builtinOrder))
	for i, name := range builtinOrder {
		out[i] = builtins[name].load().bank.Clone()
	}
	return out
}

// Builtin returns a fresh copy of the built-in bank with this name.
func Builtin(name string) (*Bank, error) {
	e, ok := builtins[name]
	if !ok {
		return nil, builtinNotFound(name)
	}
	return e.load().bank.Clone(), nil
}

// BuiltinFile returns the embedded TOML file of a built-in bank, comments
// included, as `prism bank export` writes it.
func BuiltinFile(name string) ([]byte, error) {
	e, ok := builtins[name]
	if !ok {
		return nil, builtinNotFound(name)
	}
	return append([]byte(nil), e.load().data...), nil
}

// Clone returns a deep copy of the bank.
func (b *Bank) Clone() *Bank {
	c := *b
	c.Templates.Plus = cloneStrings(b.Templates.Plus)
	c.Templates.Minus = cloneStrings(b.Templates.Minus)
	if b.Attributes != nil {
		c.Attributes = make([]Attribute, len(b.Attributes))
		for i, a := range b.Attributes {
			a.Plus, a.Minus = cloneStrings(a.Plus), cloneStrings(a.Minus)
			c.Attributes[i] = a
		}
	}
	if b.Neutrals != nil {
		c.Neutrals = append([]Neutral(nil), b.Neutrals...)
	}
	if b.ContextProbes != nil {
		c.ContextProbes = append([]ContextProbe(nil), b.ContextProbes...)
	}
	c.Levels, c.Joint = b.Levels.clone(), b.Joint.clone()
	if b.Tasks != nil {
		c.Tasks = make(map[string]Task, len(b.Tasks))
		for k, t := range b.Tasks {
			if t.Scale.Anchors != nil {
				t.Scale.Anchors = append([]ScaleAnchor(nil), t.Scale.Anchors...)
			}
			if t.Extras != nil {
				t.Extras = append([]Extra(nil), t.Extras...)
			}
			c.Tasks[k] = t
		}
	}
	return &c
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}
