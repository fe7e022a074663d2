package engine

import (
	"math"
	"strings"
	"testing"
)

func TestPricesCost(t *testing.T) {
	p := DefaultPrices()
	// gpt-4o-mini: 1M prompt tokens of which 0.4M cached, 0.1M completion:
	// 0.6·0.15 + 0.4·0.075 + 0.1·0.60 = 0.09 + 0.03 + 0.06 = 0.18 USD.
	got, ok := p.Cost("gpt-4o-mini", 1_000_000, 400_000, 100_000)
	if !ok || math.Abs(got-0.18) > 1e-12 {
		t.Errorf("cost = %v %v, want 0.18", got, ok)
	}
	if _, ok := p.Cost("no-such-model", 1, 0, 1); ok {
		t.Error("an unknown model is priced")
	}
}

func TestParsePrices(t *testing.T) {
	p, err := ParsePrices([]byte("[\"my-model\"]\ninput = 1.0\ncached_input = 0.5\noutput = 4\n"), "p.toml")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := p.Cost("my-model", 2_000_000, 1_000_000, 1_000_000); math.Abs(got-5.5) > 1e-12 { // 1·1 + 1·0.5 + 1·4
		t.Errorf("cost %v, want 5.5", got)
	}
	if _, ok := p["gpt-4o-mini"]; !ok {
		t.Error("defaults not kept")
	}
	bad := []struct{ in, want string }{
		{"[m]\ninput = -1\n", "p.toml:2:1: m.input"},
		{"[m]\nprice = 1\n", "p.toml:2:1: m.price: unknown key"},
		{"[m]\ninput = \"cheap\"\n", "p.toml:2:1: m.input"},
		{"[m\n", "p.toml:2"},
	}
	for _, tc := range bad {
		_, err := ParsePrices([]byte(tc.in), "p.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want it to contain %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParsePrices(f *testing.F) {
	f.Add([]byte("[m]\ninput = 1\ncached_input = 0.5\noutput = 2\n"))
	f.Add([]byte("[\"a.b\"]\ninput = nan\n"))
	f.Add([]byte("x = 1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePrices(b, "f.toml")
		if err != nil {
			return
		}
		for name, pr := range p {
			if pr.Input < 0 || pr.CachedInput < 0 || pr.Output < 0 || pr.Input != pr.Input {
				t.Fatalf("%q accepted with a bad price %+v", name, pr)
			}
		}
	})
}

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
