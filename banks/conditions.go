package banks

import (
	"fmt"
	"strings"
)

// Condition is one probe condition of a bank: the baseline, one wording of
// one sign of an attribute, a neutral clause or a context probe.
type Condition struct {
	// Probe is "baseline", "ATTR:+", "ATTR:-", "neutral:NAME" or "ctx:NAME".
	Probe string
	// Wording indexes the wording within its sign (0 otherwise).
	Wording int
	// Instruction is the text added to the system message ("" for the
	// baseline).
	Instruction string
}

// Baseline is the condition with no added instruction.
var Baseline = Condition{Probe: ProbeBaseline}

// PlusProbe and MinusProbe name the two signs of an attribute's probe.
func PlusProbe(attr string) string  { return attr + ":+" }
func MinusProbe(attr string) string { return attr + ":-" }

// NeutralProbe and ContextProbeName name one-sided conditions.
func NeutralProbe(name string) string     { return prefixNeutral + name }
func ContextProbeName(name string) string { return prefixContext + name }

// ProbeKind classifies a probe name: "baseline", "plus", "minus",
// "neutral", "context", "level" (a graded wording or worded control,
// levels.go) or "joint" (name "A/B"), with the attribute, neutral or context-probe
// name it refers to. ok is false when the name has none of these forms.
func ProbeKind(probe string) (kind, name string, ok bool) {
	switch {
	case probe == ProbeBaseline:
		return "baseline", "", true
	case strings.HasPrefix(probe, prefixNeutral):
		n := probe[len(prefixNeutral):]
		return "neutral", n, ValidName(n)
	case strings.HasPrefix(probe, prefixContext):
		n := probe[len(prefixContext):]
		return "context", n, ValidName(n)
	case strings.HasPrefix(probe, prefixJoint):
		a, b, _, ok := SplitJointProbe(probe)
		return "joint", a + "/" + b, ok
	case isLevelProbe(probe):
		n, _, ok := SplitLevelProbe(probe)
		return "level", n, ok
	case strings.HasSuffix(probe, ":+"):
		n := probe[:len(probe)-2]
		return "plus", n, ValidName(n)
	case strings.HasSuffix(probe, ":-"):
		n := probe[:len(probe)-2]
		return "minus", n, ValidName(n)
	}
	return "", "", false
}

// Wordings returns the attribute's instructions of one sign (plus when
// plus is true): its explicit wordings, or else the bank templates, with
// "[clause]" replaced by the clause.
func (a Attribute) Wordings(t Templates, plus bool) []string {
	src := a.Minus
	if plus {
		src = a.Plus
	}
	if len(src) == 0 {
		src = t.Minus
		if plus {
			src = t.Plus
		}
	}
	out := make([]string, len(src))
	for i, w := range src {
		out[i] = strings.ReplaceAll(w, PlaceholderClause, a.Clause)
	}
	return out
}

// Conditions returns every probe condition of the bank in a stable order:
// the baseline; then, per attribute in bank order, each + wording then each
// − wording; then the neutral clauses; then the context probes. With two
// wordings per sign, K attributes and N neutrals there are 1 + 4K + N + C
// conditions (38 for the paper's 8-attribute banks, §A.2 Table 6).
func (b *Bank) Conditions() []Condition {
	out := []Condition{Baseline}
	for _, a := range b.Attributes {
		for i, w := range a.Wordings(b.Templates, true) {
			out = append(out, Condition{Probe: PlusProbe(a.Name), Wording: i, Instruction: w})
		}
		for i, w := range a.Wordings(b.Templates, false) {
			out = append(out, Condition{Probe: MinusProbe(a.Name), Wording: i, Instruction: w})
		}
	}
	for _, n := range b.Neutrals {
		out = append(out, Condition{Probe: NeutralProbe(n.Name), Instruction: n.Text})
	}
	for _, p := range b.ContextProbes {
		out = append(out, Condition{Probe: ContextProbeName(p.Name), Instruction: p.Text})
	}
	return b.appendLevelConditions(out)
}

// Condition returns the bank's condition with the given probe name and
// wording index.
func (b *Bank) Condition(probe string, wording int) (Condition, error) {
	kind, name, _ := ProbeKind(probe)
	switch kind {
	case "baseline":
		if wording == 0 {
			return Baseline, nil
		}
	case "plus", "minus":
		for _, a := range b.Attributes {
			if a.Name != name {
				continue
			}
			if ws := a.Wordings(b.Templates, kind == "plus"); wording >= 0 && wording < len(ws) {
				return Condition{Probe: probe, Wording: wording, Instruction: ws[wording]}, nil
			}
			break
		}
	case "neutral":
		for _, n := range b.Neutrals {
			if n.Name == name && wording == 0 {
				return Condition{Probe: probe, Instruction: n.Text}, nil
			}
		}
	case "context":
		for _, p := range b.ContextProbes {
			if p.Name == name && wording == 0 {
				return Condition{Probe: probe, Instruction: p.Text}, nil
			}
		}
	case "level", "joint":
		for _, c := range b.appendLevelConditions(nil) {
			if c.Probe == probe && c.Wording == wording {
				return c, nil
			}
		}
	}
	return Condition{}, fmt.Errorf("banks: bank %q has no condition %s wording %d", b.Name, probe, wording)
}

// Probes returns the distinct probe names of the bank in condition order.
func (b *Bank) Probes() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range b.Conditions() {
		if !seen[c.Probe] {
			seen[c.Probe] = true
			out = append(out, c.Probe)
		}
	}
	return out
}
