package store

import (
	"testing"
)

// FuzzRequestKey checks that moving bytes between adjacent fields always
// changes the key (the length prefixes make the encoding injective).
func FuzzRequestKey(f *testing.F) {
	f.Add("openai", "gpt", "sys", "user", 1)
	f.Add("", "", "", "", 0)
	f.Fuzz(func(t *testing.T, backend, model, sys, user string, cut int) {
		msgs := []Message{{"system", sys}, {"user", user}}
		k1, err := RequestKey(backend, model, nil, msgs)
		if err != nil {
			t.Fatal(err)
		}
		joined := sys + user
		if cut < 0 {
			cut = -cut
		}
		if len(joined) == 0 {
			return
		}
		cut %= len(joined) + 1
		if cut == len(sys) {
			return // the same split
		}
		k2, _ := RequestKey(backend, model, nil, []Message{{"system", joined[:cut]}, {"user", joined[cut:]}})
		if k1 == k2 {
			t.Fatalf("splits %q|%q and %q|%q share a key", sys, user, joined[:cut], joined[cut:])
		}
		k3, _ := RequestKey(backend+model, "", nil, msgs)
		if model != "" && k3 == k1 {
			t.Fatalf("moving model %q into backend kept the key", model)
		}
	})
}

// FuzzKeyValue: any request key is stored and read back exactly, a
// stored key matches only itself, and a blob is stored only for a
// RequestKey's spelling.
func FuzzKeyValue(f *testing.F) {
	for _, s := range []string{"", "k1", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", "\x00\xff"} {
		f.Add(s, "k1")
	}
	f.Fuzz(func(t *testing.T, key, other string) {
		v := keyValue(key)
		if got := keyString(v); got != key {
			t.Fatalf("keyString(keyValue(%q)) = %q", key, got)
		}
		if !sameKey(v, key) || sameKey(v, other) != (key == other) {
			t.Fatalf("sameKey(keyValue(%q), %q) wrong", key, other)
		}
		if b, ok := v.([]byte); ok && (len(b) != 32 || len(key) != 64) {
			t.Fatalf("key %q stored as %d bytes", key, len(b))
		}
		if p := keyPrefix(v); len(p) > keyPrefixLen {
			t.Fatalf("prefix of %d bytes", len(p))
		}
	})
}
