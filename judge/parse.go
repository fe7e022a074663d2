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

// The score locators, tried in order; each takes its LAST match, since a
// model that explains itself first states the score at the end.
var (
	// "score": 7, 'score': "7", score=7.0 inside a JSON-ish object.
	reJSONScore = regexp.MustCompile(`(?i)["']score["']\s*:\s*["']?\s*([-+]?\d+(?:\.\d+)?)`)
	// Score: 7, score of 7, score is 7, rating = 7.
	reLabelled = regexp.MustCompile(`(?i)\b(?:score|rating|grade)\b\s*(?:is|of|=|:|-)?\s*\**\s*([-+]?\d+(?:\.\d+)?)`)
	// 7/10, 7 out of 10.
	reOutOf = regexp.MustCompile(`(?i)([-+]?\d+(?:\.\d+)?)\s*(?:/|out\s+of)\s*\d+`)
	// A number that ends the reply (only punctuation, quotes, markup after).
	reTrailing = regexp.MustCompile(`([-+]?\d+(?:\.\d+)?)[\s.!*"'}\])` + "`" + `]*$`)
)

// refusalPhrases mark a reply that declines to score (checked only when no
// score was found, so "I can't fault it: 9" still scores).
var refusalPhrases = []string{
	"i can't", "i cannot", "i can not", "i won't", "i will not", "i'm unable", "i am unable",
	"i'm not able", "i am not able", "i must decline", "unable to assist", "unable to help",
	"cannot assist", "can't assist", "cannot help", "can't help", "not able to provide",
	"i'm sorry, but", "i apologize, but", "as an ai",
}

// LocateScore finds the score a reply states and where. It accepts a JSON
// object {"score": n} (also inside code fences or prose, also "7" as a
// string, also 7.0), a labelled "Score: 7", "7/10" or "7 out of 10", and a
// number that ends the reply, in that order of preference; among matches
// of one kind the last wins. The value is not range-checked.
//
// It returns a *Error of KindRefusal when the reply declines without a
// number, else of KindUnparseable when no number is found.
func LocateScore(text string) (float64, Span, error) {
	for _, re := range []*regexp.Regexp{reJSONScore, reLabelled, reOutOf, reTrailing} {
		m := re.FindAllStringSubmatchIndex(text, -1)
		if len(m) == 0 {
			continue
		}
		last := m[len(m)-1]
		s, e := last[2], last[3]
		v, err := strconv.ParseFloat(text[s:e], 64)
		if err != nil || math.IsInf(v, 0) {
			return 0, Span{}, &Error{Kind: KindUnparseable, Msg: fmt.Sprintf("score %q is not a number", clip(text[s:e]))}
		}
		return v, Span{s, e}, nil
	}
	if IsRefusal(text) {
		return 0, Span{}, &Error{Kind: KindRefusal, Msg: fmt.Sprintf("the model declined: %q", clip(text))}
	}
	return 0, Span{}, &Error{Kind: KindUnparseable, Msg: fmt.Sprintf("no score in reply %q", clip(text))}
}

// IsRefusal reports whether text reads as a refusal (an empty reply too).
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

// ParseScore reads an integer score from a reply and checks it against the
// scale: a non-integer is KindUnparseable, a value outside [Min, Max] is
// KindOutOfRange carrying the value (never clipped). Errors are *Error.
func ParseScore(text string, sc banks.Scale) (int, error) {
	v, _, err := LocateScore(text)
	if err != nil {
		return 0, err
	}
	return checkScore(v, sc)
}

func checkScore(v float64, sc banks.Scale) (int, error) {
	if v != math.Trunc(v) {
		return 0, &Error{Kind: KindUnparseable, Msg: fmt.Sprintf("score %g is not an integer", v), Value: v}
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
