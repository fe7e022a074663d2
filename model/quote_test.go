package model

import (
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	if got := Quote("score"); got != `"score"` {
		t.Errorf("Quote(score) = %s", got)
	}
	long := strings.Repeat("é", 10<<20) // 20 MiB, two bytes per character
	got := Quote(long)
	if len(got) > 2*MaxQuoted {
		t.Fatalf("Quote of 20 MiB is %d bytes long", len(got))
	}
	if !strings.HasSuffix(got, "… (20971520 bytes)") || strings.ContainsRune(got, '\uFFFD') || strings.Contains(got, `\x`) {
		t.Errorf("Quote(long) = %s, want whole characters, … and the length", got)
	}
}
