package judge

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/banks"
)

// Expected is an expected score read from top_logprobs.
type Expected struct {
	// Score is Σ v·P(v) / Mass over the valid score values v.
	Score float64
	// Mass is the probability that fell on valid score values before
	// renormalising (≤ 1; low when the model hesitated between a score and
	// something else, or when alternatives were cut by top_logprobs).
	Mass float64
	// Approx is set when the score spans several tokens and an off-path
	// first token could itself have continued (its continuation is not
	// observed, so it was counted as the number it spells).
	Approx bool
	// Dist is P(v) for each valid v (unnormalised, sums to Mass).
	Dist map[int]float64

	// bad says why the alternatives read are not a probability
	// distribution ("" when they are): ExpectedAt's KindBadMass.
	bad string
}

// LogprobTolerance is how far a logprob may stray above 0, and a
// position's probabilities above a total of 1, before they are read as
// impossible. Servers round: a token the model is sure of comes back
// with logprob +2e-7 or +1e-6, and top_logprobs summing to 1.000001. A
// logprob in (0, LogprobTolerance] is read as 0 (probability 1); a larger
// one, or alternatives at one position whose probabilities sum above
// 1 + LogprobTolerance (two at −0.1: 1.81), make the reading KindBadMass,
// never a score.
const LogprobTolerance = 1e-4

// prob is the probability of logprob lp, rounding-tolerant; false when
// lp is no logprob (NaN, or above LogprobTolerance).
func prob(lp float64) (float64, bool) {
	switch {
	case math.IsNaN(lp) || lp > LogprobTolerance:
		return 0, false
	case lp > 0:
		return 1, true
	}
	return math.Exp(lp), true
}

// checkMass reports why alts are not the alternatives of one position
// ("" when their probabilities are each a probability and sum to at
// most 1 + LogprobTolerance).
func checkMass(alts []TopLogprob) string {
	sum := 0.0
	for _, a := range alts {
		p, ok := prob(a.Logprob)
		if !ok {
			return fmt.Sprintf("logprob %g of %q is not a log-probability (above 0 by more than %g)", a.Logprob, a.Token, LogprobTolerance)
		}
		sum += p
	}
	if sum > 1+LogprobTolerance {
		return fmt.Sprintf("the alternatives' probabilities sum to %.4g (more than 1 + %g)", sum, LogprobTolerance)
	}
	return ""
}

// ReadExpected finds the score of the reply spelled by tokens (LocateScore
// on their concatenation: the requested JSON or a bare number, never a
// number in prose) and returns the expected score there (ExpectedAt). A reply with no tokens is KindNoLogprobs.
func ReadExpected(tokens []TokenLogprob, sc banks.Scale) (Expected, error) {
	if len(tokens) == 0 {
		return Expected{}, &Error{Kind: KindNoLogprobs, Msg: "the server returned no logprobs"}
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteString(t.Token)
	}
	_, span, err := LocateScore(b.String())
	if err != nil {
		return Expected{}, err
	}
	return ExpectedAt(tokens, span.Start, sc)
}

// ExpectedAt returns the expected score of the number whose first
// character is at byte offset at of the concatenated tokens (a leading
// sign is skipped).
//
// Method. Let t be the token holding that character. Each alternative a
// among top_logprobs[t] (plus the chosen token if absent) is read as a
// digit string after stripping leading spaces, quotes, colons, '*' and the
// tokenizer space marks '▁' and 'Ġ'; alternatives that spell the same
// integer are merged ("7", " 7", "07" all count for 7). When the chosen
// number continues into the next token (tokenizers that split "10" into
// "1","0"), the chosen first token is expanded exactly with the observed
// next-position distribution: P(1‖e) = P(1)·P(e | 1) for digit
// continuations e and P(1) = P(1)·P(non-digit | 1), recursively. Off-path
// first tokens are counted as the number they spell; when such a token
// could have continued into another valid score, Approx is set. Values
// outside [Min, Max] and non-numbers carry no weight; Mass reports the
// weight kept and the score is renormalised over it.
//
// Logprobs within LogprobTolerance above 0 are read as 0 (rounding).
//
// Errors (*Error): KindNoLogprobs when the token at t has no alternatives,
// KindBadMass when the alternatives at a position read are not a
// probability distribution (a logprob above LogprobTolerance, or a sum
// above 1 + LogprobTolerance), KindUnparseable when no valid score has
// positive probability.
func ExpectedAt(tokens []TokenLogprob, at int, sc banks.Scale) (Expected, error) {
	ex, err := distAt(tokens, at, sc)
	if err != nil {
		return Expected{}, err
	}
	if !ex.finish() {
		return Expected{}, &Error{Kind: KindUnparseable, Msg: noMassMsg(sc)}
	}
	return ex, nil
}

// distAt is ExpectedAt's distribution (Dist and Approx) before it is
// summed: errors are the positional ones only.
func distAt(tokens []TokenLogprob, at int, sc banks.Scale) (Expected, error) {
	off := 0
	t := -1
	for i, tok := range tokens {
		if at >= off && at < off+len(tok.Token) {
			t = i
			break
		}
		off += len(tok.Token)
	}
	if t < 0 {
		return Expected{}, &Error{Kind: KindUnparseable, Msg: "score offset outside the tokens"}
	}
	// Skip a sign so that the digits start the reading.
	inTok := at - off
	tok := tokens[t].Token
	for inTok < len(tok) && (tok[inTok] == '+' || tok[inTok] == '-') {
		inTok++
	}
	if inTok >= len(tok) || !isDigit(tok[inTok]) {
		// The digits start in the next token (e.g. a lone " " or "-" token).
		if t+1 < len(tokens) && tokens[t+1].Token != "" && isDigit(tokens[t+1].Token[0]) {
			t++
		} else {
			return Expected{}, &Error{Kind: KindUnparseable, Msg: "no digits at the score position"}
		}
	}
	if len(tokens[t].Top) == 0 {
		return Expected{}, &Error{Kind: KindNoLogprobs, Msg: "no top_logprobs at the score token"}
	}
	ex := Expected{Dist: map[int]float64{}}
	expand(tokens, t, "", 1, sc, &ex, 0)
	if ex.bad != "" {
		return Expected{}, &Error{Kind: KindBadMass, Msg: ex.bad}
	}
	return ex, nil
}

// finish sums Dist into Mass and sets Score to the mean renormalised over
// it; false when no valid score has positive probability.
func (ex *Expected) finish() bool {
	// Summed in score order, so that the result does not depend on map
	// iteration order in the last bit.
	vs := make([]int, 0, len(ex.Dist))
	for v := range ex.Dist {
		vs = append(vs, v)
	}
	slices.Sort(vs)
	ex.Mass, ex.Score = 0, 0
	for _, v := range vs {
		ex.Mass += ex.Dist[v]
	}
	if !(ex.Mass > 0) {
		return false
	}
	for _, v := range vs {
		ex.Score += float64(v) * ex.Dist[v]
	}
	ex.Score /= ex.Mass
	return true
}

func noMassMsg(sc banks.Scale) string {
	return fmt.Sprintf("no probability on scores %d–%d at the score token", sc.Min, sc.Max)
}

// expand distributes weight w over the numbers that start with prefix and
// continue at token position t.
func expand(tokens []TokenLogprob, t int, prefix string, w float64, sc banks.Scale, ex *Expected, depth int) {
	chosen := tokens[t]
	chosenDigits, chosenDone := tokenDigits(chosen.Token, depth > 0)
	// The chosen number continues when the chosen token ends in a digit and
	// the next token starts with one.
	continues := !chosenDone && chosenDigits != "" && t+1 < len(tokens) && depth < 3 &&
		tokens[t+1].Token != "" && isDigit(tokens[t+1].Token[0])

	alts := chosen.Top
	seenChosen := false
	for _, a := range alts {
		if a.Token == chosen.Token {
			seenChosen = true
		}
	}
	if !seenChosen {
		alts = append(alts[:len(alts):len(alts)], TopLogprob{Token: chosen.Token, Logprob: chosen.Logprob})
	}
	if msg := checkMass(alts); msg != "" {
		if ex.bad == "" {
			ex.bad = fmt.Sprintf("token %d: %s", t+1, msg)
		}
		return
	}
	for _, a := range alts {
		pa, _ := prob(a.Logprob)
		p := w * pa
		if !(p > 0) {
			continue
		}
		d, done := tokenDigits(a.Token, depth > 0)
		if d == "" {
			if depth > 0 {
				// The number stopped after prefix.
				ex.add(prefix, p, sc)
			}
			continue
		}
		if continues && d == chosenDigits {
			expand(tokens, t+1, prefix+d, p, sc, ex, depth+1)
			continue
		}
		// The chosen token's own continuation is observed (it stopped); an
		// off-path token's is not.
		if !done && d != chosenDigits && couldExtend(prefix+d, sc) {
			ex.Approx = true
		}
		ex.add(prefix+d, p, sc)
	}
}

func (ex *Expected) add(digits string, p float64, sc banks.Scale) {
	if digits == "" || len(digits) > 9 {
		return
	}
	v, err := strconv.Atoi(digits)
	if err != nil || v < sc.Min || v > sc.Max {
		return
	}
	ex.Dist[v] += p
}

// couldExtend reports whether digits followed by one more digit is a valid
// score.
func couldExtend(digits string, sc banks.Scale) bool {
	if len(digits) > 8 || digits[0] == '0' {
		return false // a leading zero does not start a longer score
	}
	v, err := strconv.Atoi(digits)
	return err == nil && v*10 <= sc.Max && v*10+9 >= sc.Min
}

// tokenDigits returns the digits a token spells and whether a non-digit
// follows them inside the token (the number is complete). A continuation
// token (cont) may not carry a leading space: " 5" after "1" is a new word.
func tokenDigits(tok string, cont bool) (digits string, done bool) {
	s := tok
	if !cont {
		s = strings.TrimLeft(s, " \t\n\r\"':*`")
		for {
			if r, ok := strings.CutPrefix(s, "▁"); ok {
				s = r
			} else if r, ok := strings.CutPrefix(s, "Ġ"); ok {
				s = r
			} else {
				break
			}
		}
	}
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return s[:i], i < len(s) && i > 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
