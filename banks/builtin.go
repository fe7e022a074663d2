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

var (
	builtinOnce  sync.Once
	builtinBanks []*Bank
	builtinFiles map[string][]byte
)

func loadBuiltins() {
	builtinFiles = map[string][]byte{}
	for _, name := range builtinOrder {
		file := path.Join("builtin", name+".toml")
		data, err := builtinFS.ReadFile(file)
		if err != nil {
			panic("banks: built-in bank missing: " + file)
		}
		b, err := Parse(data, file)
		if err != nil {
			panic("banks: built-in bank invalid: " + err.Error())
		}
		if b.Name != name {
			panic("banks: built-in bank " + file + " is named " + b.Name)
		}
		builtinFiles[name] = data
		builtinBanks = append(builtinBanks, b)
	}
}

// Builtins returns fresh copies of all built-in banks in a stable order:
// quality, style8, style7 (paper Table 18 and §A.2), then story, dialogue,
// answer and generic (written for prism). It panics only if an embedded
// bank file is invalid, which the package tests rule out.
func Builtins() []*Bank {
	builtinOnce.Do(loadBuiltins)
	out := make([]*Bank, len(builtinBanks))
	for i, b := range builtinBanks {
		out[i] = b.Clone()
	}
	return out
}

// Builtin returns a fresh copy of the built-in bank with this name.
func Builtin(name string) (*Bank, error) {
	builtinOnce.Do(loadBuiltins)
	for _, b := range builtinBanks {
		if b.Name == name {
			return b.Clone(), nil
		}
	}
	return nil, fmt.Errorf("banks: no built-in bank %q (built-in: %s)", name, strings.Join(builtinOrder, ", "))
}

// BuiltinFile returns the embedded TOML file of a built-in bank, comments
// included, as `prism bank export` writes it.
func BuiltinFile(name string) ([]byte, error) {
	builtinOnce.Do(loadBuiltins)
	data, ok := builtinFiles[name]
	if !ok {
		return nil, fmt.Errorf("banks: no built-in bank %q (built-in: %s)", name, strings.Join(builtinOrder, ", "))
	}
	return append([]byte(nil), data...), nil
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
