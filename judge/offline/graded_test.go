package offline

import (
	"math"
	"testing"

	"github.com/prism-eval/prism/banks"
)

// TestGradedWordings: on the built-in ladder bank's wordings, the
// directional response grows with the wording (slightly < standard <
// much, by the documented strengths 0.5, 1, 2); the worded control has no
// linear part (−controlCurvature·d² + controlShift); a joint instruction
// is its two main effects at jointMain plus the documented interaction.
func TestGradedWordings(t *testing.T) {
	b, err := banks.Builtin("ladder")
	if err != nil {
		t.Fatal(err)
	}
	instr := func(probe string) string {
		c, err := b.Condition(probe, 0)
		if err != nil {
			t.Fatal(err)
		}
		return c.Instruction
	}
	var f Features = Ref
	f[Length] = Ref[Length] + 0.2
	f[Formality] = Ref[Formality] - 0.3
	base := logit(&Weights, f, effect{})
	half := func(plus, minus string) float64 {
		return (logit(&Weights, f, parseInstruction(instr(plus))) - logit(&Weights, f, parseInstruction(instr(minus)))) / 2
	}
	oS, o, oM := half("length:slightly+", "length:slightly-"), half("length:+", "length:-"), half("length:much+", "length:much-")
	// O = m·(gainMore + gainLess)·d/2 + m·(shiftMore − shiftLess)/2.
	want := func(m float64) float64 { return m * ((gainMore+gainLess)*0.2/2 + (shiftMore-shiftLess)/2) }
	for _, c := range []struct{ got, m float64 }{{oS, 0.5}, {o, 1}, {oM, 2}} {
		if math.Abs(c.got-want(c.m)) > 1e-12 {
			t.Errorf("O at strength %g = %g, want %g", c.m, c.got, want(c.m))
		}
	}
	if !(0 < oS && oS < o && o < oM) {
		t.Errorf("O not increasing with wording: %g %g %g", oS, o, oM)
	}
	ctl := logit(&Weights, f, parseInstruction(instr("length:control"))) - base
	if w := -controlCurvature*0.2*0.2 + controlShift; math.Abs(ctl-w) > 1e-12 {
		t.Errorf("control response %g, want %g", ctl, w)
	}
	// Joint length more, formality less: main effects and interaction.
	j := logit(&Weights, f, parseInstruction(instr("joint:length/formality:+-"))) - base
	da, db := 0.2, -0.3
	w := jointMain*(gainMore*da-curvature*da*da+shiftMore) + jointMain*(-gainLess*db-curvature*db*db+shiftLess) + jointInteraction*(-1)*da*db
	if math.Abs(j-w) > 1e-12 {
		t.Errorf("joint response %g, want %g", j, w)
	}
	// A control of a clause the judge cannot read changes nothing.
	if e := parseInstruction("Weight the moon exactly as heavily as you normally would."); e.extra != nil || len(e.terms) != 0 {
		t.Errorf("unknown control has an effect: %+v", e)
	}
}
