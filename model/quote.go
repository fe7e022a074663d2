package model

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxQuoted is how many bytes of an input Quote shows. An error message
// points at the input; it does not reproduce it: a 10 MB header cell must
// not make a 10 MB error line.
const MaxQuoted = 64

// Quote is %q of s, cut to its first MaxQuoted bytes (at a character
// boundary) with "…" and the full length after the quotes when longer.
// Every message that echoes a file's text (a cell, a key, a line) quotes
// it through here.
func Quote(s string) string {
	if len(s) <= MaxQuoted {
		return strconv.Quote(s)
	}
	cut := MaxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:cut], len(s))
}
