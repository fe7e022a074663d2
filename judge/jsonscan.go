package judge

import (
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// jval is a parsed JSON value that remembers where its literal lies in the
// reply, so that a score can be pointed at (Span) for the logprob reader.
type jval struct {
	kind       byte // '{' object, '[' array, 'n' number, 's' string, 'o' true/false/null
	start, end int  // the value's bytes in the reply (a string's include its quotes)
	num        string
	str        string
	keys       []string // object members in order (duplicates kept)
	vals       []*jval  // object member values, or array elements
}

// jsonNumber is the JSON number grammar (RFC 8259 §6): no '+', no
// leading zeros, no bare '.'.
const jsonNumber = `-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?`

var reJSONNumber = regexp.MustCompile(`^` + jsonNumber + `$`)

// parseJSON parses src, which must hold exactly one JSON value (whitespace
// around it allowed); offsets in the result are shifted by base.
func parseJSON(src string, base int) (*jval, bool) {
	if !json.Valid([]byte(src)) {
		return nil, false
	}
	return parseValid(src, base)
}

// parseValid is parseJSON for src already known to be one JSON value.
func parseValid(src string, base int) (*jval, bool) {
	dec := json.NewDecoder(strings.NewReader(src))
	dec.UseNumber()
	v, err := readJSON(dec, src, base)
	return v, err == nil
}

func readJSON(dec *json.Decoder, src string, base int) (*jval, error) {
	before := int(dec.InputOffset())
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	// The decoder consumes separators at the next Token call, so the
	// literal starts after whitespace, ',' and ':' following the previous one.
	start := before
	for start < len(src) && strings.IndexByte(" \t\r\n,:", src[start]) >= 0 {
		start++
	}
	v := &jval{start: base + start, end: base + int(dec.InputOffset())}
	switch t := tok.(type) {
	case json.Delim:
		v.kind = byte(t)
		for dec.More() {
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := k.(string)
				v.keys = append(v.keys, key)
			}
			e, err := readJSON(dec, src, base)
			if err != nil {
				return nil, err
			}
			v.vals = append(v.vals, e)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		v.end = base + int(dec.InputOffset())
	case json.Number:
		v.kind, v.num = 'n', string(t)
	case string:
		v.kind, v.str = 's', t
	default:
		v.kind = 'o'
	}
	return v, nil
}

// topObjects returns the top-level JSON objects of a reply, scanning left
// to right: a '{' that begins a well-formed JSON object yields that object
// and the scan resumes after it (objects nested in it are not top-level);
// a '{' that does not is skipped up to the character that broke it, which
// keeps the scan linear in the reply's length.
func topObjects(text string) []*jval {
	var out []*jval
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			break
		}
		i += j
		// An object's next non-space byte is '"' or '}'; checking it first
		// keeps a reply full of stray braces cheap.
		k := i + 1
		for k < len(text) && strings.IndexByte(" \t\r\n", text[k]) >= 0 {
			k++
		}
		if k == len(text) || (text[k] != '"' && text[k] != '}') {
			i = k
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == nil {
			end := i + int(dec.InputOffset())
			// Decode accepted exactly this value: no second validation.
			if v, ok := parseValid(text[i:end], i); ok {
				out = append(out, v)
			}
			i = end
			continue
		}
		var se *json.SyntaxError
		if errors.As(err, &se) && se.Offset > 1 {
			i += int(se.Offset) - 1 // Offset counts the offending byte
		} else if se != nil {
			i++
		} else {
			break // unexpected end: the object runs to the end of the reply
		}
	}
	return out
}

// trimmed returns text without surrounding white space and the offset of
// what remains.
func trimmed(text string) (string, int) {
	t := strings.TrimLeftFunc(text, unicode.IsSpace)
	off := len(text) - len(t)
	return strings.TrimRightFunc(t, unicode.IsSpace), off
}

// reFence is a reply that is one code fence: ```, an optional language
// tag, a newline, the body, ``` (white space around already trimmed).
var reFence = regexp.MustCompile("^```[A-Za-z]*[ \t]*\r?\n((?s:.*?))\r?\n?```$")

// wholeJSON parses the reply as one JSON value, the whole reply or the
// whole body of one code fence.
func wholeJSON(text string) (*jval, bool) {
	t, off := trimmed(text)
	if m := reFence.FindStringSubmatchIndex(t); m != nil {
		return parseJSON(t[m[2]:m[3]], off+m[2])
	}
	return parseJSON(t, off)
}

// number reads a JSON value as a score literal: a JSON number, or a string
// holding exactly a JSON number with no escapes (some servers quote it). The
// span is the number's characters in the reply.
func (v *jval) number(text string) (lit string, sp Span, ok bool) {
	switch v.kind {
	case 'n':
		return v.num, Span{v.start, v.end}, true
	case 's':
		if v.end-v.start >= 2 && text[v.start+1:v.end-1] == v.str && reJSONNumber.MatchString(v.str) {
			return v.str, Span{v.start + 1, v.end - 1}, true
		}
	}
	return "", Span{}, false
}

// integral reports whether a JSON number literal denotes an integer,
// exactly (7.0000000000000000001 does not, though it rounds to 7.0 as a
// float64): the value is D·10^(e−len(frac)) with D the digits of the
// mantissa, an integer when the exponent plus D's trailing zeros cover the
// fraction.
func integral(lit string) bool {
	mant, exp, _ := strings.Cut(strings.ToLower(lit), "e")
	mant = strings.TrimPrefix(mant, "-")
	ip, frac, _ := strings.Cut(mant, ".")
	d := strings.TrimLeft(ip+frac, "0")
	if d == "" {
		return true // zero
	}
	tz := len(d) - len(strings.TrimRight(d, "0"))
	e := 0
	if exp != "" {
		n, err := strconv.Atoi(exp)
		if err != nil { // an exponent beyond int: its sign decides
			return !strings.HasPrefix(exp, "-")
		}
		e = n
	}
	return e >= len(frac)-tz
}
