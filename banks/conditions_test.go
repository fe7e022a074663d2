package banks

import (
	"fmt"
	"testing"

	"github.com/prism-eval/prism/model"
)

// TestConditionCounts checks 1 + 4K + N + C per built-in bank. The paper's
// 8-attribute banks give 38 conditions (§A.2: "one baseline, two wordings
// for each sign of eight attributes, and five neutral clauses") and the
// seven-attribute bank 34 (Table 6); the story bank has 16 paired
// properties and 8 reading contexts, 40 response columns (§A.2, HANNA).
// The ladder bank adds 5 level conditions per attribute (control,
// slightly±, much±) and 4 per pair of its 15 pairs: 1 + 2·6 + 5 + 5·6 +
// 4·15 = 108.
func TestConditionCounts(t *testing.T) {
	want := map[string]struct{ conds, attrs, ctx int }{
		"quality": {38, 8, 0}, "style8": {38, 8, 0}, "style7": {34, 7, 0},
		"story": {78, 16, 8}, "dialogue": {42, 8, 4}, "answer": {42, 8, 4}, "generic": {42, 8, 4},
		"ladder": {108, 6, 0},
	}
	bs := Builtins()
	if len(bs) != len(want) {
		t.Fatalf("%d built-in banks, want %d", len(bs), len(want))
	}
	for _, b := range bs {
		w, ok := want[b.Name]
		if !ok {
			t.Errorf("unexpected built-in bank %q", b.Name)
			continue
		}
		if got := len(b.Conditions()); got != w.conds {
			t.Errorf("%s: %d conditions, want %d", b.Name, got, w.conds)
		}
		if len(b.Attributes) != w.attrs || len(b.ContextProbes) != w.ctx || len(b.Neutrals) != 5 {
			t.Errorf("%s: %d attributes, %d context probes, %d neutrals; want %d, %d, 5", b.Name, len(b.Attributes), len(b.ContextProbes), len(b.Neutrals), w.attrs, w.ctx)
		}
		if got := 2*len(b.Attributes) + len(b.ContextProbes); b.Name == "story" && got != 40 {
			t.Errorf("story bank: %d response columns, want 40", got)
		}
	}
}

func TestConditionOrderAndNames(t *testing.T) {
	b := &Bank{
		Templates:     Templates{Plus: []string{"P1 [clause].", "P2 [clause]."}, Minus: []string{"M [clause]."}},
		Attributes:    []Attribute{{Name: "b", Clause: "bee"}, {Name: "a", Clause: "ay", Plus: []string{"explicit [clause]!"}}},
		Neutrals:      []Neutral{{Name: "n1", Text: "N."}},
		ContextProbes: []ContextProbe{{Name: "c1", Text: "C."}},
	}
	var got []string
	for _, c := range b.Conditions() {
		got = append(got, fmt.Sprintf("%s/%d/%s", c.Probe, c.Wording, c.Instruction))
	}
	want := []string{
		"baseline/0/", "b:+/0/P1 bee.", "b:+/1/P2 bee.", "b:-/0/M bee.",
		"a:+/0/explicit ay!", "a:-/0/M ay.", "neutral:n1/0/N.", "ctx:c1/0/C.",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("conditions\n got %q\nwant %q", got, want)
	}
	if p := b.Probes(); fmt.Sprint(p) != "[baseline b:+ b:- a:+ a:- neutral:n1 ctx:c1]" {
		t.Errorf("Probes = %v", p)
	}
}

func TestProbeKind(t *testing.T) {
	for _, tc := range []struct {
		probe, kind, name string
		ok                bool
	}{
		{"baseline", "baseline", "", true},
		{"length:+", "plus", "length", true},
		{"first-person:-", "minus", "first-person", true},
		{"neutral:fair", "neutral", "fair", true},
		{"ctx:child", "context", "child", true},
		{"Length:+", "plus", "Length", false},
		{"ctx:", "context", "", false},
		{"length", "", "", false},
		{"length:*", "", "", false},
	} {
		kind, name, ok := ProbeKind(tc.probe)
		if kind != tc.kind || name != tc.name || ok != tc.ok {
			t.Errorf("ProbeKind(%q) = %q, %q, %v; want %q, %q, %v", tc.probe, kind, name, ok, tc.kind, tc.name, tc.ok)
		}
	}
}

// Every built-in condition has a distinct (probe, wording) and a probe
// name of a recognised form.
func TestBuiltinConditionsDistinct(t *testing.T) {
	for _, b := range Builtins() {
		seen := map[string]bool{}
		for _, c := range b.Conditions() {
			key := fmt.Sprintf("%s/%d", c.Probe, c.Wording)
			if seen[key] {
				t.Errorf("%s: repeated condition %s", b.Name, key)
			}
			seen[key] = true
			if _, _, ok := ProbeKind(c.Probe); !ok {
				t.Errorf("%s: probe name %q has no recognised form", b.Name, c.Probe)
			}
		}
	}
}

// The score readers and fit parse probe names with model.ParseProbe; every
// probe a built-in bank renders must pass it, so what a bank produces can
// always be imported and fitted.
func TestBuiltinProbesParse(t *testing.T) {
	for _, b := range Builtins() {
		for _, p := range b.Probes() {
			if _, _, _, err := model.ParseProbe(p); err != nil {
				t.Errorf("%s: %v", b.Name, err)
			}
		}
	}
}
