package openai

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	goopenai "github.com/sashabaranov/go-openai"
)

// The reply fast path: a chat-completion reply of the usual shape is
// decoded by a small scanner rather than by encoding/json's reflection
// (with go-openai's ChatCompletionMessage.UnmarshalJSON, which decodes
// each message twice over): 8% of the engine's CPU per request at
// concurrency 128 (docs/performance.md).
//
// fastReply fills a goopenai.ChatCompletionResponse exactly as
// json.Unmarshal does, or reports that it did not handle the reply, and
// the caller decodes it with json.Unmarshal. It handles a reply only when
// it is sure of encoding/json's answer, and is strict JSON on its own (it
// never takes text that json.Unmarshal refuses: TestFastReplyMatchesJSON,
// FuzzFastReply):
//
//   - the reply is one JSON object, and every field go-openai's types
//     know is spelled exactly as its tag (a key that matches a field only
//     case-insensitively, or holds an escape or a non-ASCII byte, is not
//     handled), at most once per object;
//   - a key no field of its object matches is skipped, as encoding/json
//     skips it (after checking the value's syntax);
//   - strings: any escape but a lone UTF-16 surrogate, and valid UTF-8
//     (encoding/json writes U+FFFD for the others: not handled);
//   - integers: an integer literal in the field's range (no fraction or
//     exponent: encoding/json refuses those for an int); floats: any JSON
//     number strconv.ParseFloat reads (as encoding/json does);
//   - null where encoding/json leaves the zero value (strings, numbers,
//     pointers and slices); a null message or usage object is not handled;
//   - message fields: role, content, refusal, name, reasoning_content,
//     tool_call_id, a null function_call, tool_calls null or []; choices'
//     content_filter_results and a non-empty prompt_filter_results are not
//     handled; logprobs with their bytes as arrays of 0–255.
//
// Strings are substrings of one copy of the reply, so that the reply's
// buffer can be reused once it is decoded.

// fastMaxDepth bounds the nesting of skipped values (encoding/json's own
// bound is 10,000; deeper replies are left to it).
const fastMaxDepth = 64

// replyDec scans one reply; s is its text (a copy of the bytes).
type replyDec struct {
	s       string
	i       int
	scratch [256]byte // unescaping, on the stack for the usual strings
}

// fastReply decodes data into a ChatCompletionResponse as json.Unmarshal
// would, or returns false.
func fastReply(data []byte) (goopenai.ChatCompletionResponse, bool) {
	var r goopenai.ChatCompletionResponse
	d := replyDec{s: string(data)}
	d.ws()
	if !d.response(&r) {
		return goopenai.ChatCompletionResponse{}, false
	}
	d.ws()
	if d.i != len(d.s) {
		return goopenai.ChatCompletionResponse{}, false
	}
	return r, true
}

// The JSON names of each type's fields, all of them (a key that matches
// one only case-insensitively is left to encoding/json), in the order of
// the field numbers the decoders below switch on.
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

func (d *replyDec) response(r *goopenai.ChatCompletionResponse) bool {
	return d.object(responseFields, func(f int) bool {
		switch f {
		case 0:
			return d.str(&r.ID)
		case 1:
			return d.str(&r.Object)
		case 2:
			return d.int64(&r.Created)
		case 3:
			return d.str(&r.Model)
		case 4:
			return d.choices(&r.Choices)
		case 5:
			return d.usage(&r.Usage)
		case 6:
			return d.str(&r.SystemFingerprint)
		case 7:
			// null, or an empty list (a non-nil empty slice, as encoding/json).
			if d.null() {
				return true
			}
			_, ok := d.array(func(int) bool { return false })
			r.PromptFilterResults = []goopenai.PromptFilterResult{}
			return ok
		case 8:
			var s string
			ok := d.str(&s)
			r.ServiceTier = goopenai.ServiceTier(s)
			return ok
		}
		return false
	})
}

func (d *replyDec) choices(cs *[]goopenai.ChatCompletionChoice) bool {
	if d.null() {
		return true
	}
	l := []goopenai.ChatCompletionChoice{}
	_, ok := d.array(func(k int) bool {
		l = append(l, goopenai.ChatCompletionChoice{})
		return d.choice(&l[k])
	})
	*cs = l
	return ok
}

func (d *replyDec) choice(c *goopenai.ChatCompletionChoice) bool {
	return d.object(choiceFields, func(f int) bool {
		switch f {
		case 0:
			return d.int(&c.Index)
		case 1:
			return d.message(&c.Message)
		case 2:
			var s string
			ok := d.str(&s)
			c.FinishReason = goopenai.FinishReason(s)
			return ok
		case 3:
			if d.null() {
				return true
			}
			c.LogProbs = &goopenai.LogProbs{}
			return d.logProbs(c.LogProbs)
		}
		return false // content_filter_results
	})
}

func (d *replyDec) message(m *goopenai.ChatCompletionMessage) bool {
	return d.object(messageFields, func(f int) bool {
		switch f {
		case 0:
			return d.str(&m.Role)
		case 1:
			return d.str(&m.Content)
		case 2:
			return d.str(&m.Refusal)
		case 4:
			return d.str(&m.Name)
		case 5:
			return d.str(&m.ReasoningContent)
		case 6:
			return d.null() // function_call
		case 7:
			if d.null() {
				return true
			}
			n, ok := d.array(func(int) bool { return false })
			if ok && n == 0 {
				m.ToolCalls = []goopenai.ToolCall{}
			}
			return ok
		case 8:
			return d.str(&m.ToolCallID)
		}
		return false // MultiContent
	})
}

func (d *replyDec) usage(u *goopenai.Usage) bool {
	return d.object(usageFields, func(f int) bool {
		switch f {
		case 0:
			return d.int(&u.PromptTokens)
		case 1:
			return d.int(&u.CompletionTokens)
		case 2:
			return d.int(&u.TotalTokens)
		case 3:
			if d.null() {
				return true
			}
			p := &goopenai.PromptTokensDetails{}
			u.PromptTokensDetails = p
			return d.object(promptDetailFields, func(f int) bool {
				if f == 0 {
					return d.int(&p.AudioTokens)
				}
				return d.int(&p.CachedTokens)
			})
		case 4:
			if d.null() {
				return true
			}
			c := &goopenai.CompletionTokensDetails{}
			u.CompletionTokensDetails = c
			return d.object(completionDetailFields, func(f int) bool {
				switch f {
				case 0:
					return d.int(&c.AudioTokens)
				case 1:
					return d.int(&c.ReasoningTokens)
				case 2:
					return d.int(&c.AcceptedPredictionTokens)
				}
				return d.int(&c.RejectedPredictionTokens)
			})
		}
		return false
	})
}

func (d *replyDec) logProbs(l *goopenai.LogProbs) bool {
	return d.object(logProbsFields, func(int) bool {
		if d.null() {
			return true
		}
		c := []goopenai.LogProb{}
		_, ok := d.array(func(k int) bool {
			c = append(c, goopenai.LogProb{})
			p := &c[k]
			return d.object(logProbFields, func(f int) bool {
				switch f {
				case 0:
					return d.str(&p.Token)
				case 1:
					return d.float(&p.LogProb)
				case 2:
					return d.bytes(&p.Bytes)
				}
				return d.topLogProbs(&p.TopLogProbs)
			})
		})
		l.Content = c
		return ok
	})
}

func (d *replyDec) topLogProbs(ts *[]goopenai.TopLogProbs) bool {
	if d.null() {
		return true
	}
	l := []goopenai.TopLogProbs{}
	_, ok := d.array(func(k int) bool {
		l = append(l, goopenai.TopLogProbs{})
		t := &l[k]
		return d.object(logProbFields[:3], func(f int) bool {
			switch f {
			case 0:
				return d.str(&t.Token)
			case 1:
				return d.float(&t.LogProb)
			}
			return d.bytes(&t.Bytes)
		})
	})
	*ts = l
	return ok
}

// bytes reads a []byte given as an array of 0–255 (encoding/json decodes
// a string as base64: not handled).
func (d *replyDec) bytes(b *[]byte) bool {
	if d.null() {
		return true
	}
	out := []byte{}
	_, ok := d.array(func(int) bool {
		j := d.i
		for j < len(d.s) && d.s[j] >= '0' && d.s[j] <= '9' {
			j++
		}
		if j == d.i || j-d.i > 3 || (d.s[d.i] == '0' && j-d.i > 1) || (j < len(d.s) && numberCont(d.s[j])) {
			return false
		}
		v, _ := strconv.Atoi(d.s[d.i:j])
		if v > 255 {
			return false
		}
		out = append(out, byte(v))
		d.i = j
		return true
	})
	if ok {
		*b = out
	}
	return ok
}

// numberCont: c continues a number literal (fraction or exponent).
func numberCont(c byte) bool { return c == '.' || c == 'e' || c == 'E' }

// object reads an object whose fields' JSON names are fields: a key
// equal to fields[f] calls set(f) to read its value; a key no field
// matches, even case-insensitively, is skipped.
func (d *replyDec) object(fields []string, set func(f int) bool) bool {
	if !d.byte('{') {
		return false
	}
	var seen uint64
	d.ws()
	if d.byte('}') {
		return true
	}
	for {
		key, ok := d.key()
		if !ok {
			return false
		}
		d.ws()
		if !d.byte(':') {
			return false
		}
		d.ws()
		f := -1
		for k, name := range fields {
			if key == name {
				f = k
				break
			}
			if strings.EqualFold(key, name) {
				return false // encoding/json's case-insensitive match
			}
		}
		if f < 0 {
			if !d.skip(0) {
				return false
			}
		} else {
			if seen&(1<<f) != 0 || !set(f) {
				return false // a duplicate: left to encoding/json
			}
			seen |= 1 << f
		}
		d.ws()
		if d.byte('}') {
			return true
		}
		if !d.byte(',') {
			return false
		}
		d.ws()
	}
}

// key reads an object key of printable ASCII without escapes.
func (d *replyDec) key() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start := d.i
	for d.i < len(d.s) {
		c := d.s[d.i]
		if c == '"' {
			d.i++
			return d.s[start : d.i-1], true
		}
		if c < 0x20 || c >= utf8.RuneSelf || c == '\\' {
			return "", false
		}
		d.i++
	}
	return "", false
}

// array reads an array, elem(k) reading element k; it returns the
// number of elements.
func (d *replyDec) array(elem func(k int) bool) (int, bool) {
	if !d.byte('[') {
		return 0, false
	}
	d.ws()
	if d.byte(']') {
		return 0, true
	}
	for n := 0; ; n++ {
		if !elem(n) {
			return 0, false
		}
		d.ws()
		if d.byte(']') {
			return n + 1, true
		}
		if !d.byte(',') {
			return 0, false
		}
		d.ws()
	}
}

// null reads a null literal if one is next.
func (d *replyDec) null() bool {
	if strings.HasPrefix(d.s[d.i:], "null") {
		d.i += 4
		return true
	}
	return false
}

func (d *replyDec) byte(c byte) bool {
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

// ws skips JSON whitespace.
func (d *replyDec) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// str reads a string or null (leaving *p as it is, as encoding/json).
func (d *replyDec) str(p *string) bool {
	if d.null() {
		return true
	}
	if !d.byte('"') {
		return false
	}
	start := d.i
	ascii := true
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			s := d.s[start:d.i]
			d.i++
			if !ascii && !utf8.ValidString(s) {
				return false // encoding/json writes U+FFFD for each bad byte
			}
			*p = s
			return true
		case c == '\\':
			return d.unescape(p, start)
		case c < 0x20:
			return false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		d.i++
	}
	return false
}

// unescape reads the rest of a string holding escapes, from start (just
// after its opening quote); d.i is at its first backslash.
func (d *replyDec) unescape(p *string, start int) bool {
	b := append(d.scratch[:0], d.s[start:d.i]...)
	if !utf8.Valid(b) {
		return false
	}
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			*p = string(b)
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if d.i+1 >= len(d.s) {
				return false
			}
			e := d.s[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return false
				}
				if utf16.IsSurrogate(r) {
					// Only a high surrogate followed by a low one: a lone
					// one becomes U+FFFD in encoding/json.
					if r >= 0xdc00 || !strings.HasPrefix(d.s[d.i:], `\u`) {
						return false
					}
					d.i += 2
					r2, ok := d.hex4()
					if !ok || r2 < 0xdc00 || r2 > 0xdfff {
						return false
					}
					r = utf16.DecodeRune(r, r2)
				}
				b = utf8.AppendRune(b, r)
			default:
				return false
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.i++
		default:
			r, n := utf8.DecodeRuneInString(d.s[d.i:])
			if r == utf8.RuneError && n == 1 {
				return false
			}
			b = append(b, d.s[d.i:d.i+n]...)
			d.i += n
		}
	}
	return false
}

// hex4 reads the four hex digits of a \u escape.
func (d *replyDec) hex4() (rune, bool) {
	if d.i+4 > len(d.s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(d.s[d.i : d.i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}

// number returns the JSON number literal at d.i (RFC 8259 grammar) and
// whether it has a fraction or an exponent.
func (d *replyDec) number() (lit string, frac, ok bool) {
	start := d.i
	d.byte('-')
	switch {
	case d.byte('0'):
	case d.i < len(d.s) && d.s[d.i] >= '1' && d.s[d.i] <= '9':
		d.digits()
	default:
		return "", false, false
	}
	if d.byte('.') {
		frac = true
		if !d.digits() {
			return "", false, false
		}
	}
	if d.byte('e') || d.byte('E') {
		frac = true
		if !d.byte('+') {
			d.byte('-')
		}
		if !d.digits() {
			return "", false, false
		}
	}
	return d.s[start:d.i], frac, true
}

// digits skips one or more decimal digits.
func (d *replyDec) digits() bool {
	start := d.i
	for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}

// int reads an int field: an integer literal in range, or null.
func (d *replyDec) int(p *int) bool {
	if d.null() {
		return true
	}
	lit, frac, ok := d.number()
	if !ok || frac {
		return false
	}
	v, err := strconv.ParseInt(lit, 10, strconv.IntSize)
	if err != nil {
		return false
	}
	*p = int(v)
	return true
}

func (d *replyDec) int64(p *int64) bool {
	if d.null() {
		return true
	}
	lit, frac, ok := d.number()
	if !ok || frac {
		return false
	}
	v, err := strconv.ParseInt(lit, 10, 64)
	if err != nil {
		return false
	}
	*p = v
	return true
}

// float reads a float64 field as encoding/json does (strconv.ParseFloat
// of the literal), or null.
func (d *replyDec) float(p *float64) bool {
	if d.null() {
		return true
	}
	lit, _, ok := d.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return false
	}
	*p = v
	return true
}

// skip checks and skips any JSON value nested at most fastMaxDepth deep.
func (d *replyDec) skip(depth int) bool {
	if d.i >= len(d.s) || depth > fastMaxDepth {
		return false
	}
	switch c := d.s[d.i]; {
	case c == '"':
		return d.skipString()
	case c == '{':
		d.i++
		d.ws()
		if d.byte('}') {
			return true
		}
		for {
			d.ws()
			if !d.skipString() {
				return false
			}
			d.ws()
			if !d.byte(':') {
				return false
			}
			d.ws()
			if !d.skip(depth + 1) {
				return false
			}
			d.ws()
			if d.byte('}') {
				return true
			}
			if !d.byte(',') {
				return false
			}
		}
	case c == '[':
		d.i++
		d.ws()
		if d.byte(']') {
			return true
		}
		for {
			d.ws()
			if !d.skip(depth + 1) {
				return false
			}
			d.ws()
			if d.byte(']') {
				return true
			}
			if !d.byte(',') {
				return false
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		_, _, ok := d.number()
		return ok
	}
	for _, lit := range []string{"null", "true", "false"} {
		if strings.HasPrefix(d.s[d.i:], lit) {
			d.i += len(lit)
			return true
		}
	}
	return false
}

// skipString checks and skips a string (any byte but controls; escapes
// as JSON allows them).
func (d *replyDec) skipString() bool {
	if !d.byte('"') {
		return false
	}
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if d.i+1 >= len(d.s) {
				return false
			}
			d.i += 2
			switch d.s[d.i-1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if _, ok := d.hex4(); !ok {
					return false
				}
			default:
				return false
			}
			continue
		}
		d.i++
	}
	return false
}
