package model

import (
	"fmt"
	"math"
	"regexp"
)

// The field validators below are the one definition of a valid probe name
// and a valid score; the bank parser, the score and dataset readers and
// calib's fit all call them, so whatever one entry point accepts the others
// accept too (an imported score file cannot hold what fit later rejects).

// nameRE is the allowed form of bank, attribute, neutral and context-probe
// names: a lowercase letter, then up to 39 lowercase letters, digits, '_'
// or '-'. Names appear in probe names ("length:+"), CSV cells and file
// names, so ':' ',' '/' '.' and spaces are excluded.
var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,39}$`)

// ValidName reports whether s is an allowed bank, attribute, neutral or
// context-probe name.
func ValidName(s string) bool { return nameRE.MatchString(s) }

// NameRule says what ValidName accepts, for error messages.
const NameRule = "use 1–40 lowercase letters, digits, '_' or '-', starting with a letter"

// MaxMagnitude bounds judge scores and human labels so that sums of
// squares over a whole study cannot overflow; judge scales and human
// ratings are far smaller.
const MaxMagnitude = 1e15

// CheckNumber reports a score or label that is NaN, infinite or beyond
// ±MaxMagnitude. The error holds the value only; callers add file, line and
// field.
func CheckNumber(v float64) error {
	if !(math.Abs(v) <= MaxMagnitude) {
		return fmt.Errorf("%v is not a finite number within ±%g", v, float64(MaxMagnitude))
	}
	return nil
}
