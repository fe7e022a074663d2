package openai

import (
	"encoding/json"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"

	goopenai "github.com/sashabaranov/go-openai"
)

// The chat request body written by hand: the bytes json.Marshal writes
// for chatBody (TestChatBodyEncoderMatchesJSON, FuzzChatBody), without
// its reflection, and skipping eight plain bytes of a string at a time
// where encoding/json looks at each. json.Marshal was 3.7% of the
// engine's CPU at C = 128, nearly all of it escaping the prompt
// (docs/performance.md, "The request body by hand, and the client
// layer").
//
// What encoding/json does, and so this does:
//   - fields in chatBody's order; omitempty drops 0, 0.0 (and -0.0),
//     false, nil and "" (a message's empty content);
//   - strings: '"', '\\' and the short escapes \b \f \n \r \t; other
//     bytes below 0x20 and HTML's '<', '>', '&' as \u00XX (lower-case
//     hex); a byte that is not valid UTF-8 as \ufffd; U+2028 and U+2029
//     as \u2028, \u2029; everything else as it is;
//   - a float32 as strconv.AppendFloat(f, 'f', -1, 32), or 'e' when
//     |f| < 1e-6 or ≥ 1e21 (compared as float32), its exponent's leading
//     zero dropped ("e-07" → "e-7"): ES6 number formatting;
//   - the response format (a struct holding a json.Marshaler) as
//     json.Marshal writes it: it is encoded by json.Marshal.
//
// A NaN or infinite temperature or top_p is json.Marshal's error: such a
// request is left to json.Marshal.

// chatBufs holds the encoder's scratch buffers (of up to chatMaxPooled
// bytes); the body sent is a copy of its exact length, as json.Marshal's
// result is, so nothing refers to a pooled buffer once the call returns.
var chatBufs = sync.Pool{New: func() any { return new([]byte) }}

const chatMaxPooled = 64 << 10

// encodeChat is marshalChat's encoder: json.Marshal(chatBody of cr)'s
// bytes, or ok false when cr holds a value json.Marshal refuses (a
// non-finite float, a schema that does not marshal): the caller then
// calls json.Marshal, for its error.
func encodeChat(cr *goopenai.ChatCompletionRequest) (body []byte, ok bool) {
	if !finite32(cr.Temperature) || !finite32(cr.TopP) {
		return nil, false
	}
	buf := chatBufs.Get().(*[]byte)
	b, err := appendChat((*buf)[:0], cr)
	if err == nil {
		body = append(make([]byte, 0, len(b)), b...)
	}
	if cap(b) <= chatMaxPooled {
		*buf = b[:0]
		chatBufs.Put(buf)
	}
	return body, err == nil
}

func finite32(f float32) bool {
	return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0)
}

// appendChat appends chatBody's JSON for cr to b (finite floats only).
func appendChat(b []byte, cr *goopenai.ChatCompletionRequest) ([]byte, error) {
	b = append(b, `{"model":`...)
	b = appendJSONString(b, cr.Model)
	b = append(b, `,"messages":[`...)
	for i := range cr.Messages {
		m := &cr.Messages[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"role":`...)
		b = appendJSONString(b, m.Role)
		if m.Content != "" {
			b = append(b, `,"content":`...)
			b = appendJSONString(b, m.Content)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if cr.MaxTokens != 0 {
		b = append(b, `,"max_tokens":`...)
		b = strconv.AppendInt(b, int64(cr.MaxTokens), 10)
	}
	if cr.MaxCompletionTokens != 0 {
		b = append(b, `,"max_completion_tokens":`...)
		b = strconv.AppendInt(b, int64(cr.MaxCompletionTokens), 10)
	}
	if cr.Temperature != 0 {
		b = append(b, `,"temperature":`...)
		b = appendJSONFloat32(b, cr.Temperature)
	}
	if cr.TopP != 0 {
		b = append(b, `,"top_p":`...)
		b = appendJSONFloat32(b, cr.TopP)
	}
	if cr.Stream {
		b = append(b, `,"stream":true`...)
	} else {
		b = append(b, `,"stream":false`...)
	}
	if cr.ResponseFormat != nil {
		rf, err := json.Marshal(cr.ResponseFormat)
		if err != nil {
			return b, err
		}
		b = append(b, `,"response_format":`...)
		b = append(b, rf...)
	}
	if cr.Seed != nil {
		b = append(b, `,"seed":`...)
		b = strconv.AppendInt(b, int64(*cr.Seed), 10)
	}
	if cr.LogProbs {
		b = append(b, `,"logprobs":true`...)
	}
	if cr.TopLogProbs != 0 {
		b = append(b, `,"top_logprobs":`...)
		b = strconv.AppendInt(b, int64(cr.TopLogProbs), 10)
	}
	return append(b, '}'), nil
}

// appendJSONFloat32 appends a finite float32 as encoding/json writes it.
func appendJSONFloat32(b []byte, f float32) []byte {
	format := byte('f')
	if a := float32(math.Abs(float64(f))); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, float64(f), format, -1, 32)
	if format == 'e' {
		// "e-07" → "e-7", as encoding/json cleans it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const lowerHex = "0123456789abcdef"

// jsonPlain marks the ASCII bytes encoding/json writes as they are with
// HTML escaping on: printable ones (DEL included) but '"', '\\', '<',
// '>' and '&'.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range `"\<>&` {
		t[c] = false
	}
	return t
}()

// plain8 reports whether s[i:i+8] are all jsonPlain bytes (false may
// also mean "look at them one by one"). With w the 8 bytes as one word
// (bit tricks from "Bit Twiddling Hacks", Sean Eron Anderson: a word has
// a zero byte iff (w − 0x01…01) &^ w & 0x80…80 ≠ 0, a byte below n ≤ 128
// iff (w − n·0x01…01) &^ w & 0x80…80 ≠ 0 when no byte has its top bit):
// no byte ≥ 0x80, none below 0x20, none equal to '"', '\\', '<', '>', '&'.
func plain8(s string, i int) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	s = s[i : i+8]
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	q, bs, lt, gt, amp := w^('"'*ones), w^('\\'*ones), w^('<'*ones), w^('>'*ones), w^('&'*ones)
	bad := w | (w-0x20*ones)&^w |
		(q-ones)&^q | (bs-ones)&^bs | (lt-ones)&^lt | (gt-ones)&^gt | (amp-ones)&^amp
	return bad&highs == 0
}

// appendJSONString appends s quoted and escaped as encoding/json does
// with HTML escaping (json.Marshal's).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight plain bytes at a time (most of a prompt); else the next
		// eight (or the rune reaching past them) one by one.
		if i+8 <= len(s) && plain8(s, i) {
			i += 8
			continue
		}
		for end := min(i+8, len(s)); i < end; {
			c := s[i]
			if c < utf8.RuneSelf {
				if jsonPlain[c] {
					i++
					continue
				}
				b = append(b, s[start:i]...)
				switch c {
				case '"', '\\':
					b = append(b, '\\', c)
				case '\b':
					b = append(b, '\\', 'b')
				case '\f':
					b = append(b, '\\', 'f')
				case '\n':
					b = append(b, '\\', 'n')
				case '\r':
					b = append(b, '\\', 'r')
				case '\t':
					b = append(b, '\\', 't')
				default: // other control bytes, '<', '>', '&'
					b = append(b, '\\', 'u', '0', '0', lowerHex[c>>4], lowerHex[c&0xF])
				}
				i++
				start = i
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
			case r == '\u2028' || r == '\u2029':
				b = append(b, s[start:i]...)
				b = append(b, '\\', 'u', '2', '0', '2', lowerHex[r&0xF])
			default:
				i += size
				continue
			}
			i += size
			start = i
		}
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
