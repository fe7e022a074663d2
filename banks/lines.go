package banks

import (
	"strconv"
	"strings"
)

// keyLine is where a key is defined in a TOML file. path carries array
// indices ("attributes[2].clause"); bare does not ("attributes.clause"),
// matching toml.Key.String().
type keyLine struct {
	path, bare string
	line, col  int // col: 1-based byte column where the key or header starts
}

// scanKeys finds the line of every table header and key definition in a
// TOML document, for error messages only: the toml package does not
// export key positions. It follows strings (all four kinds), comments and
// multi-line arrays and inline tables, so text inside them is never taken
// for a key; keys inside inline tables are not listed (errors there fall
// back to the enclosing key's line).
func scanKeys(data []byte) []keyLine {
	var (
		out    []keyLine
		table  string             // current table path, with indices
		counts = map[string]int{} // array-of-tables bare path → elements seen
		sc     tomlScanner
	)
	for i, raw := range strings.Split(string(data), "\n") {
		line := i + 1
		if sc.busy() {
			sc.feed(raw)
			continue
		}
		s := strings.TrimSpace(raw)
		col := len(raw) - len(strings.TrimLeft(raw, " \t")) + 1
		switch {
		case s == "" || s[0] == '#':
		case strings.HasPrefix(s, "[["):
			end := strings.Index(s, "]]")
			if end < 0 {
				continue
			}
			segs := splitKey(s[2:end])
			bare := strings.Join(segs, ".")
			counts[bare]++
			table = indexedPath(segs, counts, true)
			out = append(out, keyLine{table, bare, line, col})
		case s[0] == '[':
			end := strings.LastIndex(s, "]")
			if end < 0 {
				continue
			}
			segs := splitKey(s[1:end])
			table = indexedPath(segs, counts, false)
			out = append(out, keyLine{table, strings.Join(segs, "."), line, col})
		default:
			eq := keyEnd(s)
			if eq < 0 {
				continue
			}
			segs := splitKey(s[:eq])
			path := strings.Join(segs, ".")
			if table != "" {
				path = table + "." + path
			}
			out = append(out, keyLine{path, stripIndices(path), line, col})
			sc.feed(s[eq+1:])
		}
	}
	return out
}

// indexedPath writes segs as a path, adding the current element index
// after every prefix that is an array of tables. For a [[header]] the
// last segment gets the index of the element just opened.
func indexedPath(segs []string, counts map[string]int, array bool) string {
	var b strings.Builder
	for i := range segs {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(segs[i])
		if n, ok := counts[strings.Join(segs[:i+1], ".")]; ok && (i < len(segs)-1 || array) {
			b.WriteString("[" + strconv.Itoa(n-1) + "]")
		}
	}
	return b.String()
}

func stripIndices(path string) string {
	var b strings.Builder
	depth := 0
	for _, r := range path {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// keyEnd returns the index of the '=' that ends a key, or -1.
func keyEnd(s string) int {
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			q = c
		case c == '=':
			return i
		case c == '#':
			return -1
		}
	}
	return -1
}

// splitKey splits a dotted key, removing quotes and surrounding spaces.
func splitKey(k string) []string {
	var (
		segs []string
		cur  strings.Builder
		q    byte
	)
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '"' || c == '\'':
			q = c
		case c == '.':
			segs = append(segs, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(segs, strings.TrimSpace(cur.String()))
}

// tomlScanner follows a value across lines: open strings and bracket
// depth. It only needs to know when the value has ended.
type tomlScanner struct {
	str   string // open multi-line string delimiter
	depth int    // open [ and {
}

func (t *tomlScanner) busy() bool { return t.str != "" || t.depth > 0 }

func (t *tomlScanner) feed(s string) {
	for i := 0; i < len(s); i++ {
		if t.str != "" {
			if t.str == `"""` && s[i] == '\\' {
				i++
				continue
			}
			if strings.HasPrefix(s[i:], t.str) {
				i += len(t.str) - 1
				t.str = ""
			}
			continue
		}
		switch c := s[i]; c {
		case '#':
			return
		case '[', '{':
			t.depth++
		case ']', '}':
			if t.depth > 0 {
				t.depth--
			}
		case '"', '\'':
			d := string([]byte{c, c, c})
			if strings.HasPrefix(s[i:], d) {
				t.str = d
				i += 2
				continue
			}
			// A one-line string: skip to its closing quote.
			for i++; i < len(s) && s[i] != c; i++ {
				if c == '"' && s[i] == '\\' {
					i++
				}
			}
		}
	}
}

// lineOf returns the line and column of field (a path with indices), or
// of its nearest enclosing key or table, or 0, 0.
func lineOf(keys []keyLine, field string) (line, col int) {
	for f := field; f != ""; f = parentPath(f) {
		for _, k := range keys {
			if k.path == f {
				return k.line, k.col
			}
		}
	}
	return 0, 0
}

// parentPath drops the last ".key" or "[i]" of a path.
func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}
