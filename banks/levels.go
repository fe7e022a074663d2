package banks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prism-eval/prism/model"
)

// Levels are a bank's optional graded wordings (paper §2.2, Fig. 3,
// §B.3): templates, each with "[clause]", for slightly and much more/less
// weight, and the worded control p_k^0 that names the attribute with its
// usual weight. The bank's own plus/minus wordings are the standard level.
// Every attribute of a bank with levels gets each level given; a level
// needs both signs.
type Levels struct {
	SlightlyPlus  []string `toml:"slightly_plus,omitempty"`
	SlightlyMinus []string `toml:"slightly_minus,omitempty"`
	MuchPlus      []string `toml:"much_plus,omitempty"`
	MuchMinus     []string `toml:"much_minus,omitempty"`
	Control       []string `toml:"control,omitempty"`
	Source        string   `toml:"source,omitempty"`
}

// Joint are a bank's optional joint instructions (paper §B.5, Fig. 7):
// for each pair of attributes, one instruction per sign pair (++, +−, −+,
// −−) and template. A template has "[clause]" and "[sign]" for the first
// attribute and "[clause2]" and "[sign2]" for the second; a sign becomes
// "more" or "less".
type Joint struct {
	Templates []string   `toml:"templates,omitempty"`
	Pairs     [][]string `toml:"pairs,omitempty"`
	Source    string     `toml:"source,omitempty"`
}

// Placeholders of joint templates.
const (
	PlaceholderClause2 = "[clause2]"
	PlaceholderSign    = "[sign]"
	PlaceholderSign2   = "[sign2]"
)

const prefixJoint = "joint:"

// isLevelProbe reports whether probe has the shape ATTR:LEVEL with a known
// level, whatever ATTR (ProbeKind then checks the name).
func isLevelProbe(probe string) bool {
	i := strings.LastIndexByte(probe, ':')
	return i >= 0 && slices.Contains(model.LevelNames, probe[i+1:])
}

// SplitLevelProbe and SplitJointProbe are model's (one rule for banks and
// every reader).
func SplitLevelProbe(probe string) (attr, level string, ok bool) { return model.SplitLevelProbe(probe) }
func SplitJointProbe(probe string) (a, b, signs string, ok bool) { return model.SplitJointProbe(probe) }

// byLevel returns the templates of a level (model.Level*).
func (l Levels) byLevel(level string) []string {
	switch level {
	case model.LevelControl:
		return l.Control
	case model.LevelSlightlyPlus:
		return l.SlightlyPlus
	case model.LevelSlightlyMinus:
		return l.SlightlyMinus
	case model.LevelMuchPlus:
		return l.MuchPlus
	case model.LevelMuchMinus:
		return l.MuchMinus
	}
	return nil
}

// HasLevels reports whether the bank declares any graded wording or control.
func (b *Bank) HasLevels() bool {
	for _, l := range model.LevelNames {
		if len(b.Levels.byLevel(l)) > 0 {
			return true
		}
	}
	return false
}

// appendLevelConditions appends the level and joint conditions: per
// attribute in bank order its control, slightly+, slightly−, much+ and
// much− wordings (those the bank gives); then per pair in bank order the
// ++, +−, −+ and −− instructions, each template in turn. A bank without
// levels or pairs appends nothing, so its conditions are unchanged.
func (b *Bank) appendLevelConditions(out []Condition) []Condition {
	for _, a := range b.Attributes {
		for _, l := range model.LevelNames {
			for i, t := range b.Levels.byLevel(l) {
				out = append(out, Condition{Probe: model.LevelProbe(a.Name, l), Wording: i, Instruction: strings.ReplaceAll(t, PlaceholderClause, a.Clause)})
			}
		}
	}
	clause := map[string]string{}
	for _, a := range b.Attributes {
		clause[a.Name] = a.Clause
	}
	for _, p := range b.Joint.Pairs {
		if len(p) != 2 {
			continue // refused by Validate
		}
		for _, s := range model.JointSigns {
			for i, t := range b.Joint.Templates {
				out = append(out, Condition{Probe: model.JointProbe(p[0], p[1], s), Wording: i, Instruction: jointText(t, clause[p[0]], clause[p[1]], s)})
			}
		}
	}
	return out
}

// jointText fills a joint template. The clauses go in last so that a
// clause containing "[sign]" is left as written.
func jointText(t, c1, c2, signs string) string {
	word := func(s byte) string {
		if s == '+' {
			return "more"
		}
		return "less"
	}
	t = strings.NewReplacer(PlaceholderSign2, word(signs[1]), PlaceholderSign, word(signs[0])).Replace(t)
	return strings.NewReplacer(PlaceholderClause2, c2, PlaceholderClause, c1).Replace(t)
}

func (b *Bank) normalizeLevels() {
	l := &b.Levels
	l.SlightlyPlus, l.SlightlyMinus = nilIfEmpty(l.SlightlyPlus), nilIfEmpty(l.SlightlyMinus)
	l.MuchPlus, l.MuchMinus, l.Control = nilIfEmpty(l.MuchPlus), nilIfEmpty(l.MuchMinus), nilIfEmpty(l.Control)
	b.Joint.Templates = nilIfEmpty(b.Joint.Templates)
	if len(b.Joint.Pairs) == 0 {
		b.Joint.Pairs = nil
	}
}

// validateLevels checks the levels and joint tables: every template
// non-empty with "[clause]" (a joint one also "[clause2]", "[sign]" and
// "[sign2]"); a level given for one sign is given for the other; pairs
// name two distinct attributes of the bank, no pair twice (in either
// order); templates and pairs come together.
func (b *Bank) validateLevels(v *validator) {
	l := b.Levels
	for _, lv := range model.LevelNames {
		for i, t := range l.byLevel(lv) {
			v.template(fmt.Sprintf("levels.%s[%d]", levelKey(lv), i), t)
		}
	}
	v.optText("levels.source", l.Source)
	if (len(l.SlightlyPlus) == 0) != (len(l.SlightlyMinus) == 0) {
		v.add("levels", "slightly_plus and slightly_minus come together (a level needs both signs)")
	}
	if (len(l.MuchPlus) == 0) != (len(l.MuchMinus) == 0) {
		v.add("levels", "much_plus and much_minus come together (a level needs both signs)")
	}
	if b.HasLevels() && len(b.Attributes) == 0 {
		v.add("levels", "graded wordings need attributes")
	}
	j := b.Joint
	v.optText("joint.source", j.Source)
	for i, t := range j.Templates {
		f := fmt.Sprintf("joint.templates[%d]", i)
		v.template(f, t)
		for _, ph := range []string{PlaceholderClause2, PlaceholderSign, PlaceholderSign2} {
			if t != "" && !strings.Contains(t, ph) {
				v.add(f, "joint template has no %s placeholder", ph)
			}
		}
	}
	if (len(j.Templates) == 0) != (len(j.Pairs) == 0) {
		v.add("joint", "templates and pairs come together")
	}
	attrs := map[string]bool{}
	for _, a := range b.Attributes {
		attrs[a.Name] = true
	}
	seen := map[[2]string]bool{}
	for i, p := range j.Pairs {
		f := fmt.Sprintf("joint.pairs[%d]", i)
		if len(p) != 2 {
			v.add(f, "a pair names two attributes, not %d", len(p))
			continue
		}
		if p[0] == p[1] {
			v.add(f, "pair of %q with itself", p[0])
			continue
		}
		bad := false
		for _, n := range p {
			if !attrs[n] {
				v.add(f, "%q is not an attribute of the bank", n)
				bad = true
			}
		}
		k := [2]string{min(p[0], p[1]), max(p[0], p[1])}
		if !bad && seen[k] {
			v.add(f, "duplicate pair %s/%s", p[0], p[1])
		}
		seen[k] = true
	}
}

// levelKey is a level's key in the [levels] table.
func levelKey(level string) string {
	return strings.NewReplacer("+", "_plus", "-", "_minus").Replace(level)
}

// hashLevels adds the levels and joint tables to the bank hash, only when
// the bank has one: a bank without them keeps its hash. A tag opens each
// part, so no bank's encoding is another's prefix-extended twin.
func (b *Bank) hashLevels(w *hashWriter) {
	l := b.Levels
	if b.HasLevels() || l.Source != "" {
		w.str("levels")
		for _, lv := range model.LevelNames {
			w.list(l.byLevel(lv))
		}
		w.str(l.Source)
	}
	j := b.Joint
	if len(j.Templates) > 0 || len(j.Pairs) > 0 || j.Source != "" {
		w.str("joint")
		w.list(j.Templates)
		w.int(len(j.Pairs))
		for _, p := range j.Pairs {
			w.list(p)
		}
		w.str(j.Source)
	}
}

// Without returns the joint table without the pairs naming attr (and
// without templates when no pair is left), for removing an attribute.
func (j Joint) Without(attr string) Joint {
	j = j.clone()
	j.Pairs = slices.DeleteFunc(j.Pairs, func(p []string) bool { return slices.Contains(p, attr) })
	if len(j.Pairs) == 0 {
		j.Pairs, j.Templates = nil, nil
	}
	return j
}

func (l Levels) clone() Levels {
	l.SlightlyPlus, l.SlightlyMinus = cloneStrings(l.SlightlyPlus), cloneStrings(l.SlightlyMinus)
	l.MuchPlus, l.MuchMinus, l.Control = cloneStrings(l.MuchPlus), cloneStrings(l.MuchMinus), cloneStrings(l.Control)
	return l
}

func (j Joint) clone() Joint {
	j.Templates = cloneStrings(j.Templates)
	if j.Pairs != nil {
		ps := make([][]string, len(j.Pairs))
		for i, p := range j.Pairs {
			ps[i] = cloneStrings(p)
		}
		j.Pairs = ps
	}
	return j
}
