package judge

import (
	"strings"
	"unicode/utf8"
)

// SanitizeServerText removes from s what a terminal would act on rather
// than print: ANSI escape sequences (ESC [ … final, ESC ] … BEL or ESC \,
// and two-byte ESC sequences), the C1 CSI U+009B with its parameters, C0
// controls other than \n and \t, DEL and the C1 controls U+0080–U+009F.
// Bytes that are not UTF-8 become U+FFFD (a raw 0x9B byte is a CSI to
// some terminals). Use it on anything a server sends before it reaches an
// error message, a log line or the screen; stored replies stay verbatim.
func SanitizeServerText(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			b.WriteRune(utf8.RuneError)
			i++
		case r == 0x1b: // ESC
			i = skipEscape(s, i+1)
		case r == 0x9b: // C1 CSI
			i = skipCSI(s, i+w)
		case r == 0x9d: // C1 OSC
			i = skipString(s, i+w)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
			i += w
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			i += w
		default:
			b.WriteString(s[i : i+w])
			i += w
		}
	}
	return b.String()
}

// clean reports that s is printable ASCII (with \n and \t), which
// SanitizeServerText returns unchanged without allocating.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

// skipEscape returns the index after the escape sequence whose ESC ended
// just before i.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC: up to BEL or ST
		return skipString(s, i+1)
	}
	// ESC, intermediates 0x20–0x2F, one final byte 0x30–0x7E.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI skips parameters (0x30–0x3F), intermediates (0x20–0x2F) and the
// final byte (0x40–0x7E) of a control sequence starting at i.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString skips a control string up to and including BEL, ESC \ or
// the C1 ST (U+009C); an unterminated one runs to the end.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + 2
		}
		i++
	}
	return i
}
