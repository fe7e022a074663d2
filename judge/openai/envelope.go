package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// A reply whose envelope says two things is refused rather than read
// one way: encoding/json keeps the last of two "content" members, and
// the first of two choices would be read, either maybe the wrong score.
// Ambiguous names a key given twice in a chat completion's JSON; the
// readers count the choices themselves (a decoded reply has them). The
// client and a batch import fail such a reply with judge.KindAmbiguous
// (docs/judge.md).
//
// Only the fields go-openai decodes are checked, in the objects it
// decodes (the field lists below: the reply, each choice, its message
// and logprobs, each logprob and top logprob, the usage and its details):
// two keys that encoding/json would decode into the same field — equal,
// or equal but for case (it matches keys case-insensitively) — are
// ambiguous. Other keys, and other objects (a server's own extensions),
// are not read into anything and not checked. The retry layer refuses
// an ambiguous 2xx reply before go-openai decodes it (replyKind).

// The JSON names of the fields of each type go-openai decodes a chat
// completion into (goopenai.ChatCompletionResponse and what it holds),
// all of them; TestEnvelopeFieldsAreGoOpenAIs keeps them so.
var (
	responseFields = []string{"id", "object", "created", "model", "choices", "usage",
		"system_fingerprint", "prompt_filter_results", "service_tier"}
	choiceFields = []string{"index", "message", "finish_reason", "logprobs", "content_filter_results"}
	// ChatCompletionMessage.UnmarshalJSON's first struct: MultiContent has
	// no tag.
	messageFields = []string{"role", "content", "refusal", "MultiContent", "name",
		"reasoning_content", "function_call", "tool_calls", "tool_call_id"}
	usageFields = []string{"prompt_tokens", "completion_tokens", "total_tokens",
		"prompt_tokens_details", "completion_tokens_details"}
	promptDetailFields     = []string{"audio_tokens", "cached_tokens"}
	completionDetailFields = []string{"audio_tokens", "reasoning_tokens",
		"accepted_prediction_tokens", "rejected_prediction_tokens"}
	logProbsFields = []string{"content"}
	logProbFields  = []string{"token", "logprob", "bytes", "top_logprobs"}
)

// envShape maps the folded JSON names of an object's fields to their
// values' shapes: nil for a value not checked, an envShape (maybe empty)
// for an object (or an array of objects) whose fields are checked.
type envShape map[string]envShape

// shapeOf is the shape of an object with fields, their values unchecked
// but for subs.
func shapeOf(fields []string, subs envShape) envShape {
	s := envShape{}
	for _, f := range fields {
		s[fold(f)] = subs[f]
	}
	return s
}

var replyShape = shapeOf(responseFields, envShape{
	"choices": shapeOf(choiceFields, envShape{
		"message": shapeOf(messageFields, nil),
		"logprobs": shapeOf(logProbsFields, envShape{
			"content": shapeOf(logProbFields, envShape{"top_logprobs": shapeOf(logProbFields[:3], nil)}),
		}),
	}),
	"usage": shapeOf(usageFields, envShape{
		"prompt_tokens_details":     shapeOf(promptDetailFields, nil),
		"completion_tokens_details": shapeOf(completionDetailFields, nil),
	}),
})

// Ambiguous reports why the chat completion data is ambiguous: a key
// twice in one of the objects go-openai decodes ("choices[0].message:
// key \"content\" twice"). "" when it is not, or when data is not JSON
// (its decoder reports that).
func Ambiguous(data []byte) string {
	if !json.Valid(data) {
		return ""
	}
	return ambiguousValid(data)
}

// ambiguousValid is Ambiguous of data known to be one JSON value
// (json.Valid). It walks the bytes instead of json.Decoder's tokens:
// every reply of a run is checked, and the tokens took 36 µs a reply,
// a tenth of a run's CPU per request and 0.2–0.3% of C/L at C = 256,
// L = 300 ms (docs/performance.md, "Checking a reply"). Its verdicts are
// the decoder's, message for message (FuzzAmbiguousIsTheDecoders).
func ambiguousValid(data []byte) string {
	s := envScan{b: data, path: make([]envStep, 0, 16), seen: make([]envKey, 0, 32)}
	return s.value(replyShape)
}

// envScan walks one valid JSON value: it reads the keys of the objects
// whose fields are checked and skips every other value whole. path is
// where it is, for the message; seen holds the checked keys of the
// objects being read (a few each: a linear search beats a map), both
// stacks so that a reply costs no allocation per object.
type envScan struct {
	b    []byte
	i    int
	path []envStep
	seen []envKey
}

// envStep is one step of a path: a member's key or an element's index.
type envStep struct {
	key   []byte
	index int // -1 for a key
}

// envKey is a key read, and its fold.
type envKey struct{ folded, key []byte }

// value checks the value at s.i, after white space, against shape (nil:
// not checked).
func (s *envScan) value(shape envShape) string {
	s.space()
	if s.i >= len(s.b) {
		return ""
	}
	switch c := s.b[s.i]; {
	case shape == nil && (c == '{' || c == '['):
		s.skipNested()
	case c == '{':
		return s.object(shape)
	case c == '[':
		return s.array(shape)
	case c == '"':
		s.skipString()
	default:
		for s.i < len(s.b) && !endsScalar(s.b[s.i]) {
			s.i++
		}
	}
	return ""
}

// object checks the members of the object at s.i against shape.
func (s *envScan) object(shape envShape) string {
	base := len(s.seen)
	defer func() { s.seen = s.seen[:base] }()
	s.i++ // '{'
	for {
		s.space()
		if s.i >= len(s.b) || s.b[s.i] == '}' {
			s.i++
			return ""
		}
		k := s.key()
		s.space()
		s.i++ // ':'
		sub, field := shape[string(k.folded)]
		if field {
			for _, m := range s.seen[base:] {
				if bytes.Equal(m.folded, k.folded) {
					return dupMsg(s.where(), string(m.key), string(k.key))
				}
			}
			s.seen = append(s.seen, k)
		}
		s.path = append(s.path, envStep{key: k.key, index: -1})
		why := s.value(sub)
		s.path = s.path[:len(s.path)-1]
		if why != "" {
			return why
		}
		s.comma()
	}
}

// array checks each element of the array at s.i against shape.
func (s *envScan) array(shape envShape) string {
	s.i++ // '['
	for n := 0; ; n++ {
		s.space()
		if s.i >= len(s.b) || s.b[s.i] == ']' {
			s.i++
			return ""
		}
		s.path = append(s.path, envStep{index: n})
		why := s.value(shape)
		s.path = s.path[:len(s.path)-1]
		if why != "" {
			return why
		}
		s.comma()
	}
}

// key reads the string at s.i as a key: decoded, and folded. A key of
// lower-case ASCII without escapes, as servers send them, is its own
// decoding and fold, read in place.
func (s *envScan) key() envKey {
	start := s.i
	escaped := s.skipString()
	raw := s.b[min(start+1, len(s.b)):max(start+1, s.i-1)]
	if !escaped && folded(raw) {
		return envKey{raw, raw}
	}
	k := string(raw)
	if escaped {
		_ = json.Unmarshal(s.b[start:s.i], &k) // valid JSON: a string
	}
	return envKey{[]byte(fold(k)), []byte(k)}
}

// folded reports whether k is its own fold: no upper-case letter and
// nothing but ASCII.
func folded(k []byte) bool {
	for _, c := range k {
		if c >= 0x80 || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}

// skipString moves past the string at s.i and reports whether it holds
// an escape.
func (s *envScan) skipString() (escaped bool) {
	for s.i++; s.i < len(s.b); s.i++ {
		switch s.b[s.i] {
		case '\\':
			escaped = true
			s.i++
		case '"':
			s.i++
			return escaped
		}
	}
	return escaped
}

// skipNested moves past the object or array at s.i.
func (s *envScan) skipNested() {
	depth := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			s.skipString()
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		s.i++
		if depth == 0 {
			return
		}
	}
}

// endsScalar reports whether c ends a number or literal.
func endsScalar(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

func (s *envScan) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// comma moves past the ',' after a member or element, if there is one.
func (s *envScan) comma() {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ',' {
		s.i++
	}
}

// where is the path as the messages name it: "choices[0].message".
func (s *envScan) where() string {
	var b strings.Builder
	for _, st := range s.path {
		switch {
		case st.index >= 0:
			fmt.Fprintf(&b, "[%d]", st.index)
		case b.Len() > 0:
			b.WriteByte('.')
			b.Write(st.key)
		default:
			b.Write(st.key)
		}
	}
	return b.String()
}

func dupMsg(path, prev, key string) string {
	where := ""
	if path != "" {
		where = path + ": "
	}
	if prev == key {
		return fmt.Sprintf("%skey %q twice", where, key)
	}
	return fmt.Sprintf("%skeys %q and %q (one field to encoding/json)", where, prev, key)
}

// fold is a key as encoding/json compares it to a field's name: case
// aside (U+212A KELVIN SIGN is k, U+017F LONG S is s, as there).
func fold(k string) string { return strings.ToLower(strings.ToUpper(k)) }
