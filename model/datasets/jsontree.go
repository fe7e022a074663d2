package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/prism-eval/prism/model"
)

// The JSON loaders parse into a small tree that remembers where each value
// starts, so that a bad value can be reported by line, column and field
// path, and that keeps object keys in file order (encoding/json maps lose
// both).

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

var jkindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

func (k jkind) String() string { return jkindNames[k] }

// jnode is one JSON value with its byte span in the located input.
type jnode struct {
	kind     jkind
	off, end int64  // absolute span [off, end) in the input
	text     string // string value, number literal, or "true"/"false"
	items    []*jnode
	keys     []string // object keys in file order
	vals     []*jnode
}

// get returns the member named key of an object node, or nil.
func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != jObject {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// parseJSON parses loc.data[start:end] as one JSON value. Syntax errors and
// duplicate object keys are reported at their line and column.
func parseJSON(loc *locator, start, end int) (*jnode, error) {
	src := loc.data[start:end]
	if !json.Valid(src) {
		// Unmarshal reports the offset of the first syntax error; Valid
		// alone does not.
		var v struct{}
		err := json.Unmarshal(src, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, loc.errAt(int64(start)+max(se.Offset-1, 0), "", "invalid JSON: %s", se.Error())
		}
		return nil, loc.errAt(int64(start), "", "invalid JSON")
	}
	// The input is valid JSON, so the tree is built by a plain recursive
	// descent that need not check syntax: it knows every value's offset
	// and halves the time json.Decoder.Token took on SummEval.
	p := &jparser{loc: loc, src: loc.data[:end], i: start}
	return p.value()
}

// jparser walks input already checked by json.Valid.
type jparser struct {
	loc  *locator
	src  []byte
	i    int
	path []string // keys and indices down to the current value, joined only for an error
}

func (p *jparser) skip() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
			continue
		}
		return
	}
}

func (p *jparser) value() (*jnode, error) {
	p.skip()
	n := &jnode{off: int64(p.i)}
	switch c := p.src[p.i]; c {
	case '{':
		if err := p.object(n); err != nil {
			return nil, err
		}
	case '[':
		if err := p.array(n); err != nil {
			return nil, err
		}
	case '"':
		n.kind, n.text = jString, p.str()
	case 't', 'f', 'n':
		word := map[byte]string{'t': "true", 'f': "false", 'n': "null"}[c]
		p.i += len(word)
		if c == 'n' {
			n.kind = jNull
		} else {
			n.kind, n.text = jBool, word
		}
	default: // a number
		j := p.i
		for j < len(p.src) && strings.IndexByte("+-.eE0123456789", p.src[j]) >= 0 {
			j++
		}
		n.kind, n.text = jNumber, string(p.src[p.i:j])
		p.i = j
	}
	if len(n.text) > model.MaxText {
		return nil, p.tooLong(n.off, "")
	}
	n.end = int64(p.i)
	return n, nil
}

// object reads the object at p.i into n; a key given twice is an error.
func (p *jparser) object(n *jnode) error {
	n.kind = jObject
	p.i++
	p.skip()
	var seen map[string]bool // for large objects, where a linear search is too slow
	for p.src[p.i] != '}' {
		koff := p.i
		key := p.str()
		if len(key) > model.MaxText {
			return p.tooLong(int64(koff), key)
		}
		if len(n.keys) == 16 {
			seen = make(map[string]bool, 32)
			for _, k := range n.keys {
				seen[k] = true
			}
		}
		dup := false
		if seen != nil {
			dup = seen[key]
			seen[key] = true
		} else {
			dup = n.get(key) != nil
		}
		if dup {
			return p.loc.errAt(int64(koff), joinPath(append(p.path, key)...), "duplicate key")
		}
		p.skip()
		p.i++ // ':'
		p.path = append(p.path, key)
		v, err := p.value()
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return err
		}
		n.keys = append(n.keys, key)
		n.vals = append(n.vals, v)
		p.next()
	}
	p.i++
	return nil
}

// array reads the array at p.i into n.
func (p *jparser) array(n *jnode) error {
	n.kind = jArray
	p.i++
	p.skip()
	for p.src[p.i] != ']' {
		p.path = append(p.path, strconv.Itoa(len(n.items)))
		v, err := p.value()
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return err
		}
		n.items = append(n.items, v)
		p.next()
	}
	p.i++
	return nil
}

// next steps over the white space and the comma after a member.
func (p *jparser) next() {
	p.skip()
	if p.src[p.i] == ',' {
		p.i++
		p.skip()
	}
}

// tooLong reports a string or number over MaxText at off: every text, id
// and label of a JSON dataset is checked here, whatever reader uses it.
func (p *jparser) tooLong(off int64, key string) error {
	path := p.path
	if key != "" {
		path = append(path[:len(path):len(path)], key)
	}
	line, _ := p.loc.pos(off)
	return &model.SizeError{File: p.loc.name, Line: line, Field: joinPath(path...), Limit: model.MaxText, What: "one text"}
}

// str reads the string starting at p.i. A string without escapes that is
// valid UTF-8 is its own content; others are decoded by unquote.
func (p *jparser) str() string {
	start := p.i
	j := start + 1
	plain := true
	for p.src[j] != '"' {
		if p.src[j] == '\\' {
			plain = false
			j++
		}
		j++
	}
	p.i = j + 1
	body := p.src[start+1 : j]
	if plain && utf8.Valid(body) {
		return string(body)
	}
	return unquote(body)
}

// unquote decodes the body of a valid JSON string as encoding/json does:
// escapes resolved, a lone or broken surrogate and each invalid UTF-8 byte
// replaced by U+FFFD.
func unquote(s []byte) string {
	var sb strings.Builder // one allocation unless invalid UTF-8 is widened to U+FFFD
	sb.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			e := s[i+1]
			i += 2
			switch e {
			case 'b':
				sb.WriteByte('\b')
			case 'f':
				sb.WriteByte('\f')
			case 'n':
				sb.WriteByte('\n')
			case 'r':
				sb.WriteByte('\r')
			case 't':
				sb.WriteByte('\t')
			case 'u':
				r := hex4(s[i:])
				i += 4
				if utf16.IsSurrogate(r) {
					if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
						if d := utf16.DecodeRune(r, hex4(s[i+2:])); d != unicode.ReplacementChar {
							sb.WriteRune(d)
							i += 6
							continue
						}
					}
					r = unicode.ReplacementChar
				}
				sb.WriteRune(r)
			default: // '"', '\\', '/'
				sb.WriteByte(e)
			}
		case c < utf8.RuneSelf:
			sb.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				sb.WriteRune(utf8.RuneError)
			} else {
				sb.Write(s[i : i+size])
			}
			i += size
		}
	}
	return sb.String()
}

// hex4 reads four hex digits (validated by json.Valid).
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// Typed accessors. Each reports a wrong or missing value as a ParseError
// at the value (or, when missing, at the enclosing object) with its path.

// field returns the required member key of object n.
func (l *locator) field(n *jnode, path, key string) (*jnode, error) {
	v := n.get(key)
	if v == nil || v.kind == jNull {
		return nil, l.errAt(n.off, joinPath(path, key), "missing")
	}
	return v, nil
}

func (l *locator) wantKind(n *jnode, path string, k jkind) error {
	if n.kind != k {
		return l.errAt(n.off, path, "want %s, got %s", k, n.kind)
	}
	return nil
}

func (l *locator) asString(n *jnode, path string) (string, error) {
	if err := l.wantKind(n, path, jString); err != nil {
		return "", err
	}
	return n.text, nil
}

// asNumber converts a JSON number to a finite float64.
func (l *locator) asNumber(n *jnode, path string) (float64, error) {
	if n.kind != jNumber {
		return 0, l.errAt(n.off, path, "not a number (got %s)", n.kind)
	}
	return l.parseFloat(n, path, n.text)
}

// asNumberLoose also accepts a string holding a number ("4.5"), as
// spreadsheets exported to JSON often write them.
func (l *locator) asNumberLoose(n *jnode, path string) (float64, error) {
	if n.kind == jString {
		return l.parseFloat(n, path, n.text)
	}
	return l.asNumber(n, path)
}

func (l *locator) parseFloat(n *jnode, path, s string) (float64, error) {
	f, err := model.ParseDecimal(s)
	if err != nil {
		return 0, l.errAt(n.off, path, "not a finite number: %s (%v)", model.Quote(s), err)
	}
	if err := model.CheckNumber(f); err != nil { // a label or score: one bound for all readers
		return 0, l.errAt(n.off, path, "%v", err)
	}
	return f, nil
}

// asText renders a value for an Extra field: strings as they are, numbers
// and booleans by their literal, arrays and objects as compact JSON.
func (l *locator) asText(n *jnode) string {
	switch n.kind {
	case jNull:
		return ""
	case jString, jNumber, jBool:
		return n.text
	}
	var b bytes.Buffer
	if err := json.Compact(&b, l.data[n.off:n.end]); err != nil {
		return string(l.data[n.off:n.end]) // cannot happen: the span was validated
	}
	return b.String()
}

// truncate shortens s to at most n runes for an error message.
func truncate(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}
