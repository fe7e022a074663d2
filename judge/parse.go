package judge

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/banks"
)

// Span locates a score's digits in a reply: text[Start:End].
type Span struct{ Start, End int }

// reBare is the strict fallback for servers that ignore response_format:
// the WHOLE reply (trimmed) is a JSON number, optionally labelled "Score:",
// optionally in markdown bold ("7", "**7**", "Score: 7", "**Score:** 7").
// Being anchored at both ends it cannot match a sentence that merely ends
// in a number ("… on a scale of 1 to 10.").
var reBare = regexp.MustCompile(`(?i)^\*{0,2}(?:score\*{0,2}\s*:\s*\*{0,2}\s*)?\*{0,2}(` + jsonNumber + `)\*{0,2}$`)

// refusalPhrases mark a reply that declines to score. They only classify a
// reply that holds no score (refusal rather than unparseable); a reply in
// the requested format scores whatever its words.
var refusalPhrases = []string{
	"i can't", "i cannot", "i can not", "i won't", "i will not", "i'm unable", "i am unable",
	"i'm not able", "i am not able", "unable to assist", "unable to help",
	"cannot assist", "can't assist", "cannot help", "can't help", "not able to provide",
	"i'm sorry, but", "i apologize, but", "as an ai",
	"i must decline", "i decline", "decline to", "declining to", "i'd rather not", "i would rather not",
	"i'm not going to", "i am not going to", "i refuse", "not comfortable",
	"content policy", "usage policy", "usage policies", "(policy", "policy violation",
	"against my guidelines", "against my policy", "against my policies",
}

// LocateScore finds the score a reply states and where; the span covers
// the number's characters in text. Exactly these forms are accepted:
//
//   - a "score" member of a JSON object: {"score": 7}, with any other
//     members beside it, as the whole reply, inside a code fence, or
//     embedded in prose ('Sure! {"score": 7}'). Only top-level objects
//     count: each '{' that begins a well-formed JSON object, scanned left
//     to right, objects nested in another not considered. The value must
//     be a JSON number (7, 7.0, 1e1, -2) or a string holding exactly one
//     ("7"). Several "score" members must all state the same number, else
//     the reply is ambiguous; one that is not a number (null, "high")
//     makes the reply unparseable.
//   - only when the reply has no such member: the whole reply (trimmed) is
//     a JSON number, optionally labelled "Score:" (any case) and optionally
//     in markdown bold: "7", "**7**", "Score: 7", "**Score:** 7".
//
// Nothing else is read: no number is taken from prose, so "I cannot rate
// this on a scale of 1 to 10." is not 10. Numbers are JSON numbers
// (single quotes, a leading '+' or zero are not JSON); the value is the
// float64 nearest the literal and is not range-checked. A number beyond
// float64 (1e400) is unparseable.
//
// Errors are *Error: KindRefusal when a reply without a score reads as a
// refusal (IsRefusal), else KindUnparseable.
func LocateScore(text string) (float64, Span, error) {
	_, v, sp, err := locate(text)
	return v, sp, err
}

// locate is LocateScore also returning the number's literal, from which
// ParseScore decides exactly whether it is an integer.
func locate(text string) (lit string, v float64, sp Span, err error) {
	if lit, v, sp, ok := canonical(text); ok {
		return lit, v, sp, nil
	}
	n := 0
	for _, o := range topObjects(text) {
		for k, key := range o.keys {
			if key != "score" {
				continue
			}
			val := o.vals[k]
			l, s, ok := val.number(text)
			if !ok {
				return "", 0, Span{}, noScore(text, fmt.Sprintf("the score %s is not a number", clip(text[val.start:val.end])))
			}
			if n > 0 && !sameNumber(l, lit) {
				return "", 0, Span{}, noScore(text, fmt.Sprintf("the reply states different scores (%s and %s)", clip(lit), clip(l)))
			}
			lit, sp = l, s // the last statement's span: a model that repeats itself settles there
			n++
		}
	}
	if n == 0 {
		t, off := trimmed(text)
		m := reBare.FindStringSubmatchIndex(t)
		if m == nil {
			return "", 0, Span{}, noScore(text, fmt.Sprintf("no score in reply %q", clip(text)))
		}
		lit, sp = t[m[2]:m[3]], Span{off + m[2], off + m[3]}
	}
	v, perr := strconv.ParseFloat(lit, 64)
	if perr != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return "", 0, Span{}, &Error{Kind: KindUnparseable, Msg: fmt.Sprintf("score %s is beyond the range of a number", clip(lit))}
	}
	return lit, v, sp, nil
}

// noScore classifies a reply that gave no usable score.
func noScore(text, msg string) *Error {
	if IsRefusal(text) {
		return &Error{Kind: KindRefusal, Msg: fmt.Sprintf("the model declined: %q", clip(text))}
	}
	return &Error{Kind: KindUnparseable, Msg: msg}
}

// sameNumber reports whether two JSON number literals state the same score.
func sameNumber(a, b string) bool {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	return errA == nil && errB == nil && x == y && integral(a) == integral(b)
}

// IsRefusal reports whether text reads as a refusal (an empty reply does not).
func IsRefusal(text string) bool {
	t := strings.ToLower(strings.TrimSpace(text))
	t = strings.ReplaceAll(t, "’", "'")
	if t == "" {
		return false
	}
	for _, p := range refusalPhrases {
		if strings.Contains(t, p) {
			return true
		}
	}
	return false
}

// ParseScore reads an integer score from a reply (the forms of
// LocateScore) and checks it against the scale: a non-integer is
// KindUnparseable, a value outside [Min, Max] is KindOutOfRange carrying
// the value (never clipped). Integers are decided on the literal, exactly:
// 1e1 is 10, 0.7e1 is 7, 7.0 is 7, 7.5 is not an integer. Errors are *Error.
func ParseScore(text string, sc banks.Scale) (int, error) {
	lit, v, _, err := locate(text)
	if err != nil {
		return 0, err
	}
	return checkScore(lit, v, sc)
}

func checkScore(lit string, v float64, sc banks.Scale) (int, error) {
	if !integral(lit) || v != math.Trunc(v) {
		return 0, &Error{Kind: KindUnparseable, Msg: fmt.Sprintf("score %s is not an integer", clip(lit)), Value: v}
	}
	if v < float64(sc.Min) || v > float64(sc.Max) {
		return 0, &Error{Kind: KindOutOfRange, Msg: fmt.Sprintf("score %g outside the scale %d–%d", v, sc.Min, sc.Max), Value: v}
	}
	return int(v), nil
}

// clip shortens a reply for an error message.
func clip(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max]) + "…"
}

// canonical reads the reply a well-behaved judge sends, {"score": N} with
// N a JSON integer of at most nine digits and nothing else but white
// space, without the JSON machinery: the same result as the general path
// at a fraction of its allocations (most replies take this path).
func canonical(text string) (lit string, v float64, sp Span, ok bool) {
	i := 0
	space := func() {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
			i++
		}
	}
	lead := func(s string) bool {
		if strings.HasPrefix(text[i:], s) {
			i += len(s)
			return true
		}
		return false
	}
	space()
	if !lead("{") {
		return "", 0, Span{}, false
	}
	space()
	if !lead(`"score"`) {
		return "", 0, Span{}, false
	}
	space()
	if !lead(":") {
		return "", 0, Span{}, false
	}
	space()
	start := i
	lead("-")
	d := i
	for i < len(text) && text[i] >= '0' && text[i] <= '9' {
		i++
	}
	if n := i - d; n == 0 || n > 9 || (n > 1 && text[d] == '0') {
		return "", 0, Span{}, false
	}
	end := i
	space()
	if !lead("}") {
		return "", 0, Span{}, false
	}
	space()
	if i != len(text) {
		return "", 0, Span{}, false
	}
	n, err := strconv.Atoi(text[start:end])
	if err != nil {
		return "", 0, Span{}, false
	}
	return text[start:end], float64(n), Span{start, end}, true
}
