package model

import "strings"

// Probe kinds of the wording diagnostics (docs/protocol.md §15): graded
// wordings and worded controls of an attribute, and joint instructions on
// a pair of attributes. They are controls like neutral clauses: never
// regression columns.
const (
	ProbeLevel = "level" // ATTR:slightly+, ATTR:much-, ATTR:control, …
	ProbeJoint = "joint" // joint:A/B:+-
)

// Wording levels of an attribute beside its standard ATTR:+ and ATTR:-
// probes (paper §2.2, Fig. 3): slightly and much more/less weight, and the
// worded control that names the attribute with unchanged weight.
const (
	LevelSlightlyPlus  = "slightly+"
	LevelSlightlyMinus = "slightly-"
	LevelMuchPlus      = "much+"
	LevelMuchMinus     = "much-"
	LevelControl       = "control"
)

// LevelNames lists the level suffixes in condition order.
var LevelNames = []string{LevelControl, LevelSlightlyPlus, LevelSlightlyMinus, LevelMuchPlus, LevelMuchMinus}

// JointSigns lists the four sign pairs of a joint instruction in
// condition order: the first attribute's sign, then the second's.
var JointSigns = []string{"++", "+-", "-+", "--"}

const prefixJoint = "joint:"

// LevelProbe names attribute attr's condition at a level ("length:much+").
func LevelProbe(attr, level string) string { return attr + ":" + level }

// JointProbe names the joint instruction on attributes a and b with signs
// ("++", "+-", "-+" or "--"): "joint:a/b:+-".
func JointProbe(a, b, signs string) string { return prefixJoint + a + "/" + b + ":" + signs }

// SplitLevelProbe splits "ATTR:LEVEL"; ok is false unless LEVEL is one of
// LevelNames and ATTR a valid name.
func SplitLevelProbe(name string) (attr, level string, ok bool) {
	i := strings.LastIndexByte(name, ':')
	if i < 0 {
		return "", "", false
	}
	attr, level = name[:i], name[i+1:]
	for _, l := range LevelNames {
		if l == level {
			return attr, level, ValidName(attr)
		}
	}
	return "", "", false
}

// SplitJointProbe splits "joint:A/B:SIGNS"; ok is false unless A and B are
// distinct valid names and SIGNS one of JointSigns.
func SplitJointProbe(name string) (a, b, signs string, ok bool) {
	rest, found := strings.CutPrefix(name, prefixJoint)
	if !found {
		return "", "", "", false
	}
	i := strings.LastIndexByte(rest, ':')
	if i < 0 {
		return "", "", "", false
	}
	pair, signs := rest[:i], rest[i+1:]
	a, b, found = strings.Cut(pair, "/")
	if !found || !ValidName(a) || !ValidName(b) || a == b {
		return "", "", "", false
	}
	for _, s := range JointSigns {
		if s == signs {
			return a, b, signs, true
		}
	}
	return "", "", "", false
}

// isLevelName reports whether name has the shape ATTR:LEVEL with a known
// level (whatever ATTR).
func isLevelName(name string) bool {
	i := strings.LastIndexByte(name, ':')
	if i < 0 || strings.HasPrefix(name, prefixJoint) {
		return false
	}
	for _, l := range LevelNames {
		if l == name[i+1:] {
			return true
		}
	}
	return false
}
