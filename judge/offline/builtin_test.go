package offline

import (
	"math"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

// TestBuiltinAttributesMap fails when an attribute of a built-in bank maps
// to no feature, or when one of its wordings reads with the wrong sign.
func TestBuiltinAttributesMap(t *testing.T) {
	n := 0
	for _, b := range banks.Builtins() {
		for _, a := range b.Attributes {
			f, ok := FeatureNamed(a.Clause)
			if !ok {
				t.Errorf("bank %s attribute %s: clause %q maps to no feature", b.Name, a.Name, a.Clause)
				continue
			}
			for _, sign := range []int{+1, -1} {
				for _, w := range a.Wordings(b.Templates, sign > 0) {
					e := parseInstruction(w)
					if len(e.terms) != 1 || e.terms[0].feature != f || e.terms[0].sign != sign {
						t.Errorf("bank %s attribute %s: %q reads as %+v, want %v sign %+d", b.Name, a.Name, w, e.terms, f, sign)
					}
					n++
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no built-in attribute wordings")
	}
}

// TestBuiltinProbeDirection: every wording of every built-in attribute
// moves the score in the named direction on the texts built to show and
// to lack its feature.
func TestBuiltinProbeDirection(t *testing.T) {
	j := mustJudge(t, judge.ModeExpected, 8)
	for _, b := range banks.Builtins() {
		for _, a := range b.Attributes {
			f, ok := FeatureNamed(a.Clause)
			if !ok {
				continue // reported by TestBuiltinAttributesMap
			}
			pair := showcase[f]
			gap := func(instr string) float64 {
				return score(t, j, pair[0], instr, ten).Score - score(t, j, pair[1], instr, ten).Score
			}
			g0 := gap("")
			for _, w := range a.Wordings(b.Templates, true) {
				if g := gap(w); !(g > g0+0.05) {
					t.Errorf("bank %s %s (%v): %q moved the gap %.3f → %.3f, want up by > 0.05", b.Name, a.Name, f, w, g0, g)
				}
			}
			for _, w := range a.Wordings(b.Templates, false) {
				if g := gap(w); !(g < g0-0.05) {
					t.Errorf("bank %s %s (%v): %q moved the gap %.3f → %.3f, want down by > 0.05", b.Name, a.Name, f, w, g0, g)
				}
			}
		}
	}
}

// TestBuiltinNeutralsDoNothing: neutral clauses of the built-in banks read
// as no instruction and move scores only by call noise.
func TestBuiltinNeutralsDoNothing(t *testing.T) {
	j := mustJudge(t, judge.ModeExpected, 1)
	for _, b := range banks.Builtins() {
		for _, nc := range b.Neutrals {
			if e := parseInstruction(nc.Text); len(e.terms) != 0 {
				t.Errorf("bank %s neutral %s %q reads as %+v", b.Name, nc.Name, nc.Text, e.terms)
			}
			for f := range showcase {
				cand := showcase[f][0]
				if d := score(t, j, cand, nc.Text, ten).Score - score(t, j, cand, "", ten).Score; math.Abs(d) > 0.4 {
					t.Errorf("bank %s neutral %s moved a score by %.3f", b.Name, nc.Name, d)
				}
			}
		}
	}
}

// TestBuiltinContextProbesRead: context probes are one-sided; each either
// maps to context terms or to nothing, and never to a weight probe sign.
func TestBuiltinContextProbesRead(t *testing.T) {
	mapped := 0
	for _, b := range banks.Builtins() {
		for _, cp := range b.ContextProbes {
			if e := parseInstruction(cp.Text); len(e.terms) > 0 {
				mapped++
			}
		}
	}
	if mapped == 0 {
		t.Error("no built-in context probe has an effect on the simulator")
	}
}
