package judge

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prism-eval/prism/banks"
)

// Rubric replies (docs/rubrics.md): a SAJA reply rates every criterion in
// one JSON object; a G-Eval reply states one rating, read from sampled
// replies or from the logprobs at the rating.

// KindNoMass: the logprobs at a G-Eval rating put no probability on any
// valid rating of the scale (every alternative is a non-number or out of
// range), so there is no weighted mean to take.
const KindNoMass ErrorKind = "no_mass"

// ParseSAJA reads a SAJA reply: one item per criterion of crits, in their
// order, with ID the criterion's name.
//
// The reply's object is the whole reply (or the whole body of one code
// fence) when that is a JSON object; otherwise the one top-level JSON
// object in the reply that has a member named after a criterion (objects
// embedded in prose count, as for LocateScore). A reply with no such
// object, or with several, is a failed reply: the error (*Error,
// KindRefusal when it reads as a refusal, else KindUnparseable) is
// returned, and every item carries it. So is an object with no member
// named after a criterion.
//
// Otherwise each criterion is read from its member, matched by exact name:
// an integer JSON number, or a string holding exactly one ("4"), decided
// exactly on the literal (4.0 and 4e0 are 4, 4.5 is not an integer). A
// criterion that is missing, null, not a number, not an integer or stated
// twice with different values is a missing cell (Item.Err KindUnparseable);
// one outside its scale is a missing cell of KindOutOfRange carrying the
// value (never clipped). Missing cells are never zeros: HasScore is false.
// Members that name no criterion are ignored.
func ParseSAJA(text string, crits []banks.RatedCriterion) ([]Item, error) {
	items := make([]Item, len(crits))
	for i, c := range crits {
		items[i].ID = c.Name
	}
	fail := func(e *Error) ([]Item, error) {
		for i := range items {
			items[i].Err = e
		}
		return items, e
	}
	obj, err := sajaObject(text, crits)
	if err != nil {
		return fail(err)
	}
	present := 0
	for i, c := range crits {
		var lit string
		found, named := false, false
		for k, key := range obj.keys {
			if key != c.Name {
				continue
			}
			named = true
			val := obj.vals[k]
			l, _, ok := val.number(text)
			if !ok {
				items[i].Err = &Error{Kind: KindUnparseable, Msg: fmt.Sprintf("criterion %s: the rating %s is not a number", c.Name, clip(text[val.start:val.end]))}
				break
			}
			if found && !sameNumber(l, lit) {
				items[i].Err = &Error{Kind: KindUnparseable, Msg: fmt.Sprintf("criterion %s: different ratings (%s and %s)", c.Name, clip(lit), clip(l))}
				break
			}
			lit, found = l, true
		}
		if named {
			present++
		}
		if items[i].Err != nil {
			continue
		}
		if !found {
			items[i].Err = &Error{Kind: KindUnparseable, Msg: "criterion " + c.Name + " is missing from the reply"}
			continue
		}
		v, perr := strconv.ParseFloat(lit, 64)
		if perr != nil || math.IsInf(v, 0) {
			items[i].Err = &Error{Kind: KindUnparseable, Msg: fmt.Sprintf("criterion %s: rating %s is beyond the range of a number", c.Name, clip(lit))}
			continue
		}
		n, cerr := checkScore(lit, v, c.Scale)
		if cerr != nil {
			e := cerr.(*Error)
			e.Msg = "criterion " + c.Name + ": " + e.Msg
			items[i].Err = e
			continue
		}
		items[i].Score, items[i].HasScore = float64(n), true
	}
	if present == 0 {
		return fail(noScore(text, fmt.Sprintf("the reply's JSON object rates none of the %d criteria", len(crits))))
	}
	return items, nil
}

// sajaObject finds the JSON object of a SAJA reply (see ParseSAJA).
func sajaObject(text string, crits []banks.RatedCriterion) (*jval, *Error) {
	if v, ok := wholeJSON(text); ok {
		if v.kind == '{' {
			return v, nil
		}
		return nil, noScore(text, fmt.Sprintf("the reply is a JSON value but not an object: %q", clip(text)))
	}
	names := make(map[string]bool, len(crits))
	for _, c := range crits {
		names[c.Name] = true
	}
	var found []*jval
	for _, o := range topObjects(text) {
		for _, k := range o.keys {
			if names[k] {
				found = append(found, o)
				break
			}
		}
	}
	switch len(found) {
	case 0:
		return nil, noScore(text, fmt.Sprintf("no JSON object of ratings in reply %q", clip(text)))
	case 1:
		return found[0], nil
	}
	return nil, noScore(text, fmt.Sprintf("the reply holds %d JSON objects of ratings; which one counts is ambiguous", len(found)))
}

// ratingNumber is a G-Eval rating: digits with an optional decimal part
// and sign (no exponent; G-Eval's release reads decimals too).
const ratingNumber = `-?[0-9]+(?:\.[0-9]+)?`

// reLeading is a rating at the very start of a reply, after white space, an
// optional list marker ("- ", "* ", "• ") and optional markdown bold.
var reLeading = regexp.MustCompile(`^(?:[-*•][ \t]+)?(?:\*\*)?[ \t]*(` + ratingNumber + `)`)

// labelTail is what may follow the label before its rating: bold, a
// parenthesised scale such as "(1-5)", bold, one of ':' '=' '-' '–', bold.
var reLabelTail = regexp.MustCompile(`^(?:\*\*)?[ \t]*(?:\([^()\n]{0,20}\))?[ \t]*(?:\*\*)?[ \t]*[:=\-–][ \t]*(?:\*\*)?[ \t]*(` + ratingNumber + `)`)

// LocateRating finds the rating a G-Eval reply states and where: either a
// leading rating ("4", " 4", "- 4", "**4**", "4 - the summary …") or,
// when the reply does not start with one, the first rating written after
// the criterion's label, any case ("Coherence: 4", "- Coherence: 4",
// "**Coherence:** 4", "Coherence (1-5): 4", "coherence = 4"). A number
// followed directly by a letter or by a range ("1-5", "1–5", "4th") is not
// a rating. Nothing else is read: "I rate it 4" has no rating. The value is
// not checked against any scale. Errors are *Error: KindRefusal when the
// reply reads as one, else KindUnparseable.
func LocateRating(text, label string) (float64, Span, error) {
	t, off := trimmed(text)
	if m := reLeading.FindStringSubmatchIndex(t); m != nil && ratingEnds(t, m[3]) {
		return ratingAt(text, off+m[2], off+m[3])
	}
	if label != "" {
		// ASCII case folding keeps byte offsets equal in text and lower.
		lower, ll := asciiLower(text), asciiLower(label)
		for i := 0; ; {
			j := strings.Index(lower[i:], ll)
			if j < 0 {
				break
			}
			at := i + j + len(ll)
			// The label must be a whole word: "Coherence" in "Incoherence" is not it.
			if startsWord(lower, i+j) {
				if m := reLabelTail.FindStringSubmatchIndex(text[at:]); m != nil && ratingEnds(text, at+m[3]) {
					return ratingAt(text, at+m[2], at+m[3])
				}
			}
			i = at
		}
	}
	return 0, Span{}, noScore(text, fmt.Sprintf("no rating at the start of the reply or after %q: %q", label, clip(text)))
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// ratingEnds reports whether a number ending at end stands alone: not
// followed by a letter, a digit or a range dash and digit.
func ratingEnds(s string, end int) bool {
	if end >= len(s) {
		return true
	}
	r, n := utf8.DecodeRuneInString(s[end:])
	if unicode.IsLetter(r) || unicode.IsDigit(r) {
		return false
	}
	if r == '-' || r == '–' {
		next := strings.TrimLeft(s[end+n:], " ")
		return next == "" || next[0] < '0' || next[0] > '9'
	}
	return true
}

// startsWord reports whether byte i of s starts a word.
func startsWord(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

func ratingAt(text string, start, end int) (float64, Span, error) {
	v, err := strconv.ParseFloat(text[start:end], 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, Span{}, &Error{Kind: KindUnparseable, Msg: fmt.Sprintf("rating %s is beyond the range of a number", clip(text[start:end]))}
	}
	return v, Span{start, end}, nil
}

// ParseRating reads one sampled G-Eval reply (LocateRating) and checks the
// rating against the scale: outside [Min, Max] is KindOutOfRange carrying
// the value. A decimal rating inside the scale is kept (3.5).
func ParseRating(text, label string, sc banks.Scale) (float64, error) {
	v, _, err := LocateRating(text, label)
	if err != nil {
		return 0, err
	}
	if v < float64(sc.Min) || v > float64(sc.Max) {
		return 0, &Error{Kind: KindOutOfRange, Msg: fmt.Sprintf("rating %g outside the scale %d–%d", v, sc.Min, sc.Max), Value: v}
	}
	return v, nil
}

// Ratings is the mean of G-Eval's sampled ratings for one criterion.
type Ratings struct {
	Score   float64 // mean of the valid ratings
	Valid   int     // replies with a valid rating
	Invalid int     // replies without one (each counted, none taken as 0)
	// Errs holds the error of each invalid reply, in reply order.
	Errs []*Error
}

// MeanRatings reads N sampled replies to one G-Eval request (temperature
// 1, top_p 1 in G-Eval's release) with ParseRating and returns the mean of
// the valid ratings. With none valid it returns an *Error: KindRefusal when
// every reply reads as a refusal, KindOutOfRange when every reply's
// rating was outside the scale, else KindUnparseable.
func MeanRatings(replies []string, label string, sc banks.Scale) (Ratings, error) {
	var r Ratings
	var sum float64
	refusals, ranges := 0, 0
	for _, text := range replies {
		v, err := ParseRating(text, label, sc)
		if err != nil {
			e := err.(*Error)
			r.Errs = append(r.Errs, e)
			r.Invalid++
			switch e.Kind {
			case KindRefusal:
				refusals++
			case KindOutOfRange:
				ranges++
			}
			continue
		}
		sum += v
		r.Valid++
	}
	if r.Valid == 0 {
		kind := KindUnparseable
		switch {
		case len(replies) > 0 && refusals == len(replies):
			kind = KindRefusal
		case len(replies) > 0 && ranges == len(replies):
			kind = KindOutOfRange
		}
		return r, &Error{Kind: kind, Msg: fmt.Sprintf("no valid %s rating in %d replies", label, len(replies))}
	}
	r.Score = sum / float64(r.Valid)
	return r, nil
}

// ExpectedRating is G-Eval's score from the top_logprobs at the rating
// position: Σ v·P(v) / Σ P(v) over the alternatives that spell a valid
// integer rating v of the scale, renormalised over them (Expected.Mass is
// Σ P(v) before renormalising). Each alternative is read as in
// ExpectedAt: leading spaces, quotes, colons, '*' and the tokenizer marks
// '▁' and 'Ġ' are stripped, and alternatives that spell the same integer
// merge (" 4" and "4"). A logprob within LogprobTolerance above 0 is read
// as 0. No alternatives: KindNoLogprobs; alternatives that are not a
// probability distribution (a logprob above the tolerance, a sum above
// 1 + LogprobTolerance): KindBadMass; no probability on a valid rating:
// KindNoMass.
func ExpectedRating(top []TopLogprob, sc banks.Scale) (Expected, error) {
	if len(top) == 0 {
		return Expected{}, &Error{Kind: KindNoLogprobs, Msg: "no top_logprobs at the rating"}
	}
	if msg := checkMass(top); msg != "" {
		return Expected{}, &Error{Kind: KindBadMass, Msg: msg}
	}
	ex := Expected{Dist: map[int]float64{}}
	for _, a := range top {
		d, _ := tokenDigits(a.Token, false)
		p, _ := prob(a.Logprob)
		ex.add(d, p, sc)
	}
	if !ex.finish() {
		return Expected{}, &Error{Kind: KindNoMass, Msg: noMassMsg(sc)}
	}
	return ex, nil
}

// ReadRatingLogprobs finds the rating of a G-Eval reply spelled by tokens
// (LocateRating on their concatenation) and returns the weighted mean over
// the valid ratings at its first token, with ExpectedAt's handling of
// ratings that span several tokens. Errors (*Error): KindNoLogprobs when
// there are no tokens or no alternatives at the rating, LocateRating's
// errors when the reply states no rating, KindNoMass when no valid rating
// has positive probability.
func ReadRatingLogprobs(tokens []TokenLogprob, label string, sc banks.Scale) (Expected, error) {
	if len(tokens) == 0 {
		return Expected{}, &Error{Kind: KindNoLogprobs, Msg: "the server returned no logprobs"}
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteString(t.Token)
	}
	_, span, err := LocateRating(b.String(), label)
	if err != nil {
		return Expected{}, err
	}
	ex, err := distAt(tokens, span.Start, sc)
	if err != nil {
		return Expected{}, err
	}
	if !ex.finish() {
		return Expected{}, &Error{Kind: KindNoMass, Msg: noMassMsg(sc)}
	}
	return ex, nil
}

// GEvalScore is the final G-Eval score of one candidate, with no fitted
// head: each criterion's score s (a mean rating) is mapped to [0, 1] by
// its scale, (s − Min)/(Max − Min), and the criteria are averaged with
// equal weight. scores maps criterion name to score. Every criterion must
// have a finite score inside its scale: a missing one is an *Error of
// KindUnparseable naming it, one outside the scale KindOutOfRange; there
// is no partial average.
func GEvalScore(crits []banks.Criterion, scores map[string]float64) (float64, error) {
	if len(crits) == 0 {
		return 0, &Error{Kind: KindConfig, Msg: "no criteria"}
	}
	var missing []string
	var sum float64
	for _, c := range crits {
		s, ok := scores[c.Name]
		if !ok || math.IsNaN(s) {
			missing = append(missing, c.Name)
			continue
		}
		if s < float64(c.Scale.Min) || s > float64(c.Scale.Max) {
			return 0, &Error{Kind: KindOutOfRange, Msg: fmt.Sprintf("criterion %s: score %g outside the scale %d–%d", c.Name, s, c.Scale.Min, c.Scale.Max), Value: s}
		}
		sum += c.Unit(s)
	}
	if len(missing) > 0 {
		return 0, &Error{Kind: KindUnparseable, Msg: "no score for criterion " + strings.Join(missing, ", ")}
	}
	return sum / float64(len(crits)), nil
}

// ItemIDs returns the ids of a request's items, as Result.Finish takes
// them: the candidate ids of a batched request, the criterion names of a
// SAJA request (one item per criterion), nil for a request with one score
// (a bank request or a G-Eval request).
func ItemIDs(req banks.Request) []string {
	if req.Rubric != nil && req.Rubric.Kind == banks.RubricSAJA {
		return req.Rubric.Names()
	}
	return req.BatchIDs
}
