package model

import "testing"

// TestParseProbeLevels: level and joint probe names parse to their kind,
// attribute(s) and level or signs; malformed ones are refused.
func TestParseProbeLevels(t *testing.T) {
	for _, c := range []struct{ name, kind, attr, sign string }{
		{"length:control", ProbeLevel, "length", "control"},
		{"length:slightly+", ProbeLevel, "length", "slightly+"},
		{"a-b:much-", ProbeLevel, "a-b", "much-"},
		{"joint:length/detail:+-", ProbeJoint, "length/detail", "+-"},
		{"length:+", ProbeAttr, "length", "+"},
	} {
		k, a, s, err := ParseProbe(c.name)
		if err != nil || k != c.kind || a != c.attr || s != c.sign {
			t.Errorf("ParseProbe(%q) = %q %q %q %v", c.name, k, a, s, err)
		}
	}
	for _, bad := range []string{"joint:a/a:++", "joint:a/b:+", "joint:a:++", "joint:A/b:++", "Length:control", "x:muchly+", ":control", "joint:a/b/c:++"} {
		if _, _, _, err := ParseProbe(bad); err == nil {
			t.Errorf("ParseProbe(%q) accepted", bad)
		}
	}
	if a, b, s, ok := SplitJointProbe(JointProbe("x", "y", "-+")); !ok || a != "x" || b != "y" || s != "-+" {
		t.Errorf("JointProbe round trip: %q %q %q %v", a, b, s, ok)
	}
}
