package model

import (
	"errors"
	"strconv"
)

// ErrNotDecimal is returned (wrapped) by ParseDecimal for text that is not
// a decimal number.
var ErrNotDecimal = errors.New("want a decimal number: digits with an optional sign, point and exponent")

// ParseDecimal reads a number cell of a dataset, score or label file: an
// optional sign, digits with an optional decimal point, and an optional
// exponent ("4.5", "-3", ".5", "1e-3"). strconv.ParseFloat alone would also
// take Go literal syntax ("4_5" as 45, "0x1p3" as 8) and "inf" or "nan",
// which no spreadsheet writes and which would be stored as a score no one
// gave. A number too large for a float64 is an error, never ±Inf. An empty
// cell is the caller's missing value and never reaches here.
func ParseDecimal(s string) (float64, error) {
	if !isDecimal(s) {
		return 0, ErrNotDecimal
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil { // only a range error is left: 1e999
		return 0, errors.New("beyond the range of a float64")
	}
	return v, nil
}

// isDecimal reports whether s is [+-]? (digits [. digits?] | . digits)
// ([eE] [+-]? digits)?.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	mant := 0 // digits in the mantissa
	for i < len(s) && isDigit(s[i]) {
		i, mant = i+1, mant+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i, mant = i+1, mant+1
		}
	}
	if mant == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == exp {
			return false
		}
	}
	return i == len(s)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
