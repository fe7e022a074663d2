package judge

import (
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)
	cases := []struct {
		hdr  []string
		want time.Duration
		ok   bool
	}{
		{nil, 0, false},
		{[]string{"Retry-After", "100000"}, 100000 * time.Second, true},
		{[]string{"Retry-After", " 2 "}, 2 * time.Second, true},
		{[]string{"Retry-After", "-5"}, 0, false},
		{[]string{"Retry-After", "NaN"}, 0, false},
		{[]string{"Retry-After", "-Infinity"}, 0, false},
		{[]string{"Retry-After", "soon"}, 0, false},
		{[]string{"Retry-After", "Infinity"}, MaxHint, true},
		{[]string{"Retry-After", "1e400"}, MaxHint, true},
		{[]string{"Retry-After", "Mon, 30 Nov 2026 01:00:30 GMT"}, 30 * time.Second, true},
		{[]string{"Retry-After", "Sun, 29 Nov 2026 01:00:30 GMT"}, 0, true},
		{[]string{"Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT"}, MaxHint, true},
		{[]string{"retry-after-ms", "250"}, 250 * time.Millisecond, true},
		{[]string{"retry-after-ms", "1e300"}, MaxHint, true},
		{[]string{"retry-after-ms", "NaN", "Retry-After", "3"}, 3 * time.Second, true},
	}
	for _, c := range cases {
		h := http.Header{}
		for i := 0; i+1 < len(c.hdr); i += 2 {
			h.Set(c.hdr[i], c.hdr[i+1])
		}
		got, ok := ParseRetryAfter(h, now)
		if got != c.want || ok != c.ok {
			t.Errorf("%v: %v, %v; want %v, %v", c.hdr, got, ok, c.want, c.ok)
		}
	}
}

func TestParseReset(t *testing.T) {
	cases := []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"6m0s", 6 * time.Minute, true},
		{"20ms", 20 * time.Millisecond, true},
		{" 0.5 ", 500 * time.Millisecond, true},
		{"-1s", 0, false},
		{"NaN", 0, false},
		{"100000h", MaxHint, true},
		{"1e300", MaxHint, true},
		{fmt.Sprint(math.MaxFloat64), MaxHint, true},
	}
	for _, c := range cases {
		got, ok := ParseReset(c.v)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseReset(%q) = %v, %v; want %v, %v", c.v, got, ok, c.want, c.ok)
		}
	}
	if d, ok := parseWait(fmt.Sprint(math.MaxFloat64), time.Millisecond); !ok || d != MaxHint {
		t.Errorf("max float: %v %v", d, ok)
	}
}
