package banks

import (
	"strings"
	"testing"
)

// withLevels is minimal with a second attribute, every level and one pair.
var withLevels = strings.Replace(minimal, "[[neutrals]]", `[[attributes]]
name = "tone"
clause = "how formal it is"

[levels]
slightly_plus = ["Slightly more [clause]."]
slightly_minus = ["Slightly less [clause]."]
much_plus = ["Much more [clause]."]
much_minus = ["Much less [clause]."]
control = ["Usual [clause]."]

[joint]
templates = ["[sign] [clause], [sign2] [clause2]."]
pairs = [["length", "tone"]]

[[neutrals]]`, 1)

// TestLevelConditions: levels and pairs append their conditions after the
// bank's own, in the documented order, with the placeholders filled.
func TestLevelConditions(t *testing.T) {
	b := mustParse(t, withLevels)
	base := mustParse(t, minimal)
	cs := b.Conditions()
	// minimal: baseline, length ±, calm; plus tone ± = 6; then 5 levels × 2
	// attributes and 4 sign pairs × 1 pair.
	if len(cs) != 6+10+4 {
		t.Fatalf("%d conditions, want 20", len(cs))
	}
	if got := len(base.Conditions()); got != 4 {
		t.Fatalf("minimal has %d conditions, want 4", got)
	}
	want := map[string]string{
		"length:control":       "Usual how long it is.",
		"length:slightly+":     "Slightly more how long it is.",
		"tone:much-":           "Much less how formal it is.",
		"joint:length/tone:+-": "more how long it is, less how formal it is.",
		"joint:length/tone:-+": "less how long it is, more how formal it is.",
	}
	for _, c := range cs {
		if w, ok := want[c.Probe]; ok {
			if c.Instruction != w {
				t.Errorf("%s: %q, want %q", c.Probe, c.Instruction, w)
			}
			delete(want, c.Probe)
		}
		got, err := b.Condition(c.Probe, c.Wording)
		if err != nil || got != c {
			t.Errorf("Condition(%s, %d) = %+v, %v", c.Probe, c.Wording, got, err)
		}
		if kind, _, ok := ProbeKind(c.Probe); !ok || kind == "" {
			t.Errorf("ProbeKind(%s) not ok", c.Probe)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing conditions %v", want)
	}
	if cs[6].Probe != "length:control" || cs[16].Probe != "joint:length/tone:++" {
		t.Errorf("order: %s at 6, %s at 16", cs[6].Probe, cs[16].Probe)
	}
	// Round trip and a hash that sees every list.
	out, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if b2 := mustParse(t, string(out)); b2.Hash() != b.Hash() {
		t.Error("Marshal → Parse changed the hash")
	}
	if b.Hash() == base.Hash() {
		t.Error("levels do not change the hash")
	}
}

// TestHashSeesLevels: changing any level or joint list changes the hash.
func TestHashSeesLevels(t *testing.T) {
	h0 := mustParse(t, withLevels).Hash()
	for _, edit := range []func(b *Bank){
		func(b *Bank) { b.Levels.Control[0] += "x" },
		func(b *Bank) { b.Levels.SlightlyPlus[0] += "x" },
		func(b *Bank) { b.Levels.SlightlyMinus[0] += "x" },
		func(b *Bank) { b.Levels.MuchPlus[0] += "x" },
		func(b *Bank) { b.Levels.MuchMinus[0] += "x" },
		func(b *Bank) { b.Joint.Templates[0] += "x" },
		func(b *Bank) { b.Joint.Pairs[0][0], b.Joint.Pairs[0][1] = "tone", "length" },
		func(b *Bank) { b.Levels.Control, b.Levels.MuchPlus = nil, b.Levels.Control },
	} {
		b := mustParse(t, withLevels)
		edit(b)
		if b.Hash() == h0 {
			t.Errorf("edit %d leaves the hash unchanged", len(h0))
		}
	}
}

// TestLevelErrors: each rule of the levels and joint tables fails with
// file:line:col and the field.
func TestLevelErrors(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{`slightly_minus = ["Slightly less [clause]."]`, ``, "l.toml:14:1: levels: slightly_plus and slightly_minus come together"},
		{`much_plus = ["Much more [clause]."]`, `much_plus = ["Much more."]`, "l.toml:17:1: levels.much_plus[0]: template has no [clause] placeholder"},
		{`pairs = [["length", "tone"]]`, `pairs = [["length", "size"]]`, `l.toml:23:1: joint.pairs[0]: "size" is not an attribute of the bank`},
		{`pairs = [["length", "tone"]]`, `pairs = [["length", "tone"], ["tone", "length"]]`, `l.toml:23:1: joint.pairs[1]: duplicate pair tone/length`},
		{`pairs = [["length", "tone"]]`, `pairs = [["length"]]`, `l.toml:23:1: joint.pairs[0]: a pair names two attributes, not 1`},
		{`templates = ["[sign] [clause], [sign2] [clause2]."]`, `templates = ["[sign] [clause]."]`, `l.toml:22:1: joint.templates[0]: joint template has no [clause2] placeholder`},
		{`control = ["Usual [clause]."]`, `contrl = ["Usual [clause]."]`, `l.toml:19:1: levels.contrl: unknown key`},
	} {
		src := strings.Replace(withLevels, c.old, c.new, 1)
		_, err := Parse([]byte(src), "l.toml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s: error %v, want %s", c.old, c.new, err, c.want)
		}
	}
}

// TestLadderBank: the built-in ladder has the six properties of paper
// §B.3, every level and all 15 pairs.
func TestLadderBank(t *testing.T) {
	b, err := Builtin("ladder")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Attributes) != 6 || len(b.Joint.Pairs) != 15 || len(b.Levels.Control) != 1 || len(b.Levels.MuchMinus) != 1 {
		t.Fatalf("ladder: %d attributes, %d pairs", len(b.Attributes), len(b.Joint.Pairs))
	}
	c, err := b.Condition("hedging:much+", 0)
	if err != nil || c.Instruction != "When you assign the score, weight how cautious and hedged the summary’s wording is much more heavily than you normally would." {
		t.Errorf("hedging:much+ = %q, %v", c.Instruction, err)
	}
}

// TestJointWithout: removing an attribute drops its pairs, and the
// templates with the last pair, so the bank stays valid.
func TestJointWithout(t *testing.T) {
	b := mustParse(t, withLevels)
	b.Attributes = b.Attributes[:1]
	b.Joint = b.Joint.Without("tone")
	if b.Joint.Pairs != nil || b.Joint.Templates != nil || b.Validate() != nil {
		t.Errorf("joint %+v, validate %v", b.Joint, b.Validate())
	}
	l, _ := Builtin("ladder")
	if j := l.Joint.Without("length"); len(j.Pairs) != 10 || len(l.Joint.Pairs) != 15 {
		t.Errorf("ladder without length: %d pairs (original %d)", len(j.Pairs), len(l.Joint.Pairs))
	}
}
