package offline

import (
	"regexp"
	"strings"
)

// The offline judge's responses to the wording diagnostics' instructions
// (docs/judge.md, Offline judge; docs/protocol.md §15). Graded wordings
// ("slightly/much more heavily") are read by parseInstruction as strengths
// 0.5 and 2 of the standard probe. This file adds the two other kinds:
//
// Worded control ("weight CLAUSE exactly as heavily as you normally
// would"): no directional term, but naming the attribute draws attention
// to it, a shared response Z with no linear part:
//
//	Δz = −controlCurvature·(F[k] − Ref[k])² + controlShift
//
// Joint instruction ("weight A more heavily and B less heavily than you
// normally would"): each attribute gets its standard term (gainMore or
// gainLess, curvature, shift) at strength jointMain, plus an interaction
//
//	Δz += jointInteraction·u·v·(F[a] − Ref[a])·(F[b] − Ref[b])
//
// with u, v = ±1 the two signs, so joint instructions are not additive
// (paper §B.5).
const (
	controlCurvature = 0.75
	controlShift     = -0.05
	jointMain        = 0.8
	jointInteraction = 2.0
)

// extra is the part of an effect that is not a sum of single-feature
// terms: the control's response or a joint instruction's interaction.
type extra struct {
	control bool
	feature Feature // the control's feature
	a, b    Feature // a joint instruction's features
	uv      float64 // the product of its signs
}

// logit is the extra's Δz for features f (0 for nil).
func (e *extra) logit(f Features) float64 {
	if e == nil {
		return 0
	}
	if e.control {
		d := f[e.feature] - Ref[e.feature]
		return -controlCurvature*d*d + controlShift
	}
	return jointInteraction * e.uv * (f[e.a] - Ref[e.a]) * (f[e.b] - Ref[e.b])
}

var reJoint = regexp.MustCompile(`weight (.+?) (more|less) heavily and (.+?) (more|less) heavily`)

// parseGraded reads a worded control or a joint instruction from the
// normalised (lower-case, single-spaced) instruction s; ok is false for
// anything else, which parseInstruction then reads as before.
func parseGraded(s string) (effect, bool) {
	if containsAny(s, "exactly as heavily", "exactly as much weight", "its usual weight") {
		f, ok := featureOf(s)
		if !ok {
			return effect{}, true
		}
		return effect{extra: &extra{control: true, feature: f}}, true
	}
	m := reJoint.FindStringSubmatch(s)
	if m == nil {
		return effect{}, false
	}
	fa, okA := featureOf(m[1])
	fb, okB := featureOf(m[3])
	if !okA || !okB || fa == fb {
		return effect{}, true // a joint instruction the judge cannot read: no effect
	}
	u, v := signOf(m[2]), signOf(m[4])
	return effect{
		terms: []term{{fa, u, jointMain}, {fb, v, jointMain}},
		extra: &extra{a: fa, b: fb, uv: float64(u * v)},
	}, true
}

func signOf(w string) int {
	if strings.HasPrefix(w, "more") {
		return +1
	}
	return -1
}
