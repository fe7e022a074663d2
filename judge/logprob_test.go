package judge

import (
	"math"
	"testing"

	"github.com/prism-eval/prism/banks"
)

// tok builds a token whose alternatives have the given probabilities.
func tok(text string, alts ...any) TokenLogprob {
	t := TokenLogprob{Token: text}
	for i := 0; i+1 < len(alts); i += 2 {
		p := alts[i+1].(float64)
		t.Top = append(t.Top, TopLogprob{Token: alts[i].(string), Logprob: math.Log(p)})
		if alts[i].(string) == text {
			t.Logprob = math.Log(p)
		}
	}
	return t
}

func TestReadExpected(t *testing.T) {
	cases := []struct {
		name   string
		toks   []TokenLogprob
		sc     banks.Scale
		score  float64
		mass   float64
		approx bool
		kind   ErrorKind
	}{
		{
			// Hand calculation: P(6) = .25, P(7) = .5, P(8) = .25 → 7.
			name: "symmetric", sc: ten, score: 7, mass: 1,
			toks: []TokenLogprob{tok(`{"score": `, `{"score": `, 1.0), tok("7", "7", .5, "6", .25, "8", .25), tok("}", "}", 1.0)},
		},
		{
			// Variants merge: 7 gets .4+.2, 9 gets .2; "ten" and "-" carry
			// no score: mass .8, score (7·.6 + 9·.2)/.8 = 7.5.
			name: "variants and non-scores", sc: ten, score: 7.5, mass: .8,
			toks: []TokenLogprob{tok(`{"score":`, `{"score":`, 1.0), tok(" 7", " 7", .4, "7", .2, " 9", .2, "ten", .1, "-", .1), tok("}", "}", 1.0)},
		},
		{
			// 0–4 scale; 5 is out of range and dropped: (0·.5 + 4·.25)/.75.
			name: "out-of-range alternative", sc: banks.Scale{Min: 0, Max: 4}, score: 4.0 / 3, mass: .75,
			toks: []TokenLogprob{tok("Score: ", "Score: ", 1.0), tok("0", "0", .5, "4", .25, "5", .25)},
		},
		{
			// 0–100 with a single-digit tokenizer: chosen "8","5".
			// P(85) = .7·.6, P(80) = .7·.2, P(8) = .7·.2 (stop), P(9) = .3
			// off-path (could be 9x: approx).
			name: "two-token 0-100", sc: banks.Scale{Min: 0, Max: 100}, mass: 1, approx: true,
			score: 85*.42 + 80*.14 + 8*.14 + 9*.3,
			toks:  []TokenLogprob{tok(`{"score": `, `{"score": `, 1.0), tok("8", "8", .7, "9", .3), tok("5", "5", .6, "0", .2, "}", .2), tok("}", "}", 1.0)},
		},
		{
			// A three-digit single token on 0–100.
			name: "100 as one token", sc: banks.Scale{Min: 0, Max: 100}, mass: 1, score: 100*.5 + 95*.5,
			toks: []TokenLogprob{tok(`{"score": `, `{"score": `, 1.0), tok("100", "100", .5, "95", .5), tok("}", "}", 1.0)},
		},
		{
			name: "a number in prose is not the score", sc: ten, score: 3, mass: 1,
			toks: []TokenLogprob{tok("It has 9 flaws. ", "It has 9 flaws. ", 1.0), tok(`{"score": `, `{"score": `, 1.0), tok("3", "3", 1.0), tok("}", "}", 1.0)},
		},
		{name: "no tokens", sc: ten, kind: KindNoLogprobs},
		{
			name: "no alternatives", sc: ten, kind: KindNoLogprobs,
			toks: []TokenLogprob{{Token: `{"score": 7}`}},
		},
		{
			name: "no valid mass", sc: ten, kind: KindUnparseable,
			toks: []TokenLogprob{tok(`{"score": `, `{"score": `, 1.0), tok("0", "0", .9, "x", .1), tok("}", "}", 1.0)},
		},
		{
			// The 10 ends the reply but is not in the requested format.
			name: "refusal ending in a number", sc: ten, kind: KindRefusal,
			toks: []TokenLogprob{tok("I cannot rate this on a scale of 1 to ", "I cannot rate this on a scale of 1 to ", 1.0), tok("10", "10", .9, "9", .1), tok(".", ".", 1.0)},
		},
		{
			name: "refusal", sc: ten, kind: KindRefusal,
			toks: []TokenLogprob{tok("I cannot assist.", "I cannot assist.", 1.0)},
		},
	}
	for _, c := range cases {
		ex, err := ReadExpected(c.toks, c.sc)
		if KindOf(err) != c.kind {
			t.Errorf("%s: error %v, want kind %q", c.name, err, c.kind)
			continue
		}
		if c.kind != "" {
			continue
		}
		if math.Abs(ex.Score-c.score) > 1e-9 || math.Abs(ex.Mass-c.mass) > 1e-9 || ex.Approx != c.approx {
			t.Errorf("%s: score %v mass %v approx %v; want %v, %v, %v", c.name, ex.Score, ex.Mass, ex.Approx, c.score, c.mass, c.approx)
		}
	}
}

// A sure token comes back a hair above 0 (servers round: +2e-7, +1e-6):
// it is the score, not skipped for the tail. Alternatives whose
// probabilities are no distribution are bad_mass, never a score.
func TestExpectedLogprobTolerance(t *testing.T) {
	at := func(chosen string, lp float64, alts ...TopLogprob) []TokenLogprob {
		return []TokenLogprob{
			{Token: `{"score": `, Logprob: 0, Top: []TopLogprob{{Token: `{"score": `, Logprob: 0}}},
			{Token: chosen, Logprob: lp, Top: alts},
			{Token: "}", Logprob: 0, Top: []TopLogprob{{Token: "}", Logprob: 0}}},
		}
	}
	cases := []struct {
		name  string
		toks  []TokenLogprob
		score float64 // ±1e-5
		kind  ErrorKind
	}{
		// Read with the tail alone, these were 5.18 and 9.000.
		{name: "6 at +2e-7", score: 6, toks: at("6", 2e-7,
			TopLogprob{"6", 2e-7}, TopLogprob{"5", -15.2}, TopLogprob{"7", -17.5})},
		{name: "8 at +1e-6", score: 8, toks: at("8", 1e-6,
			TopLogprob{"8", 1e-6}, TopLogprob{"9", -16.3})},
		{name: "at the tolerance", score: 3, toks: at("3", LogprobTolerance, TopLogprob{"3", LogprobTolerance})},
		// Σp = 2·e^−0.1 = 1.81: was 6.5.
		{name: "impossible mass", kind: KindBadMass, toks: at("6", -0.1,
			TopLogprob{"6", -0.1}, TopLogprob{"7", -0.1})},
		{name: "above the tolerance", kind: KindBadMass, toks: at("6", 0.01, TopLogprob{"6", 0.01})},
		{name: "NaN", kind: KindBadMass, toks: at("6", math.NaN(), TopLogprob{"6", math.NaN()})},
		// The chosen token, absent from its alternatives, counts too.
		{name: "chosen beside a full tail", kind: KindBadMass, toks: at("6", -0.01, TopLogprob{"5", -0.01})},
	}
	for _, c := range cases {
		ex, err := ReadExpected(c.toks, ten)
		if KindOf(err) != c.kind {
			t.Errorf("%s: %+v, error %v; want kind %q", c.name, ex, err, c.kind)
			continue
		}
		if c.kind == "" && (math.Abs(ex.Score-c.score) > 1e-5 || ex.Mass > 1+LogprobTolerance) {
			t.Errorf("%s: score %v mass %v, want %v", c.name, ex.Score, ex.Mass, c.score)
		}
	}
	// A continuation position is checked as well: "1","0" on 0–100 with
	// an impossible distribution after the "1".
	toks := []TokenLogprob{
		{Token: "1", Logprob: 0, Top: []TopLogprob{{"1", 0}}},
		{Token: "0", Logprob: -0.2, Top: []TopLogprob{{"0", -0.2}, {"5", -0.2}}},
	}
	if _, err := ReadExpected(toks, banks.Scale{Min: 0, Max: 100}); KindOf(err) != KindBadMass {
		t.Errorf("continuation: error %v, want bad_mass", err)
	}
}
