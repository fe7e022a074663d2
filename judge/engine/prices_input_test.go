package engine

import (
	"strings"
	"testing"
)

// A price is finite: TOML's inf and nan are refused with the key's place.
func TestParsePricesFinite(t *testing.T) {
	for _, v := range []string{"inf", "+inf", "nan", "-inf", "-1"} {
		_, err := ParsePrices([]byte("[\"m\"]\ninput = 1\noutput = "+v+"\n"), "p.toml")
		if err == nil || !strings.HasPrefix(err.Error(), "p.toml:3:") {
			t.Errorf("output = %s: err = %v, want an error at p.toml:3", v, err)
		}
	}
}

// A deeply nested price table is refused before parsing, naming the file.
func TestParsePricesDepth(t *testing.T) {
	data := "x = " + strings.Repeat("{a=", 8000) + "1" + strings.Repeat("}", 8000)
	_, err := ParsePrices([]byte(data), "p.toml")
	if err == nil || !strings.HasPrefix(err.Error(), "p.toml:1:") || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("err = %v, want a depth error naming p.toml", err)
	}
}
