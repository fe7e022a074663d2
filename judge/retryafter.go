package judge

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ParseRetryAfter reads the wait a server asks for in h: retry-after-ms,
// then Retry-After as a number of seconds or as an HTTP date (measured
// from now). A value that is not a wait (negative, NaN, unreadable) is
// skipped; a huge or infinite one, or a date far ahead, reads as MaxHint.
// ok is false when h holds no usable hint.
func ParseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if d, ok := parseWait(h.Get("retry-after-ms"), time.Millisecond); ok {
		return d, true
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if d, ok := parseWait(v, time.Second); ok {
		return d, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return min(max(0, at.Sub(now)), MaxHint), true
	}
	return 0, false
}

// ParseReset reads an x-ratelimit-reset-* value: a Go duration as OpenAI
// sends it ("1s", "6m0s", "20ms") or a bare number of seconds ("0.5"),
// bounded like ParseRetryAfter.
func ParseReset(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return min(d, MaxHint), true
	}
	return parseWait(v, time.Second)
}

// parseWait reads a decimal number of units as a wait: false for
// anything else, for NaN and for a negative number; a number too large
// for a time.Duration ("1e300", "Infinity") is read as MaxHint.
func parseWait(v string, unit time.Duration) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	if math.IsNaN(x) || x < 0 {
		return 0, false
	}
	if x >= float64(MaxHint/unit) {
		return MaxHint, true
	}
	return time.Duration(x * float64(unit)), true
}
