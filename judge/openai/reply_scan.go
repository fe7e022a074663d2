package openai

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON scanner under fastReply (reply.go): strict RFC 8259 syntax,
// values read as encoding/json reads them into Go strings, ints and
// floats, or a refusal (false) the caller turns into "not handled".

// fastMaxDepth bounds the nesting of skipped values (encoding/json's own
// bound is 10,000; deeper replies are left to it).
const fastMaxDepth = 64

// replyDec scans one reply; s is its text (a copy of the bytes).
type replyDec struct {
	s       string
	i       int
	scratch [256]byte // unescaping, on the stack for the usual strings
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
	// Unescaped, the string is at most as long as it is escaped: b is
	// made once at that length, not grown byte by byte (a model's
	// explanation is hundreds of bytes with a \n in each line).
	end := d.i
	for end < len(d.s) && d.s[end] != '"' {
		if d.s[end] == '\\' {
			end++
		}
		end++
	}
	b := d.scratch[:0]
	if n := end - start; n > cap(b) {
		b = make([]byte, 0, n)
	}
	b = append(b, d.s[start:d.i]...)
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
			r, ok := d.escape()
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
		case c < utf8.RuneSelf:
			// A run of plain ASCII bytes at once.
			j := d.i + 1
			for j < len(d.s) {
				if c := d.s[j]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
					break
				}
				j++
			}
			b = append(b, d.s[d.i:j]...)
			d.i = j
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

// escape reads the escape at d.i (its backslash) and returns the rune it
// stands for; a \u escape's code unit is returned as it is, a surrogate
// half included.
func (d *replyDec) escape() (rune, bool) {
	if d.i+1 >= len(d.s) {
		return 0, false
	}
	e := d.s[d.i+1]
	d.i += 2
	switch e {
	case '"', '\\', '/':
		return rune(e), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'u':
		return d.hex4()
	}
	return 0, false
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
	v := int64(*p)
	if !d.integer(&v, strconv.IntSize) {
		return false
	}
	*p = int(v)
	return true
}

func (d *replyDec) int64(p *int64) bool { return d.integer(p, 64) }

// integer reads an integer literal that fits bits bits into *p, or null
// (leaving *p as it is).
func (d *replyDec) integer(p *int64, bits int) bool {
	if d.null() {
		return true
	}
	lit, frac, ok := d.number()
	if !ok || frac {
		return false
	}
	v, err := strconv.ParseInt(lit, 10, bits)
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
			if _, ok := d.escape(); !ok {
				return false
			}
			continue
		}
		d.i++
	}
	return false
}
