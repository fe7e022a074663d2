package store

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzRedact checks that a registered secret never survives Redact, that
// a credential-shaped token inserted anywhere is removed, and that text
// without credentials passes through unchanged.
func FuzzRedact(f *testing.F) {
	f.Add("401 Unauthorized", "secret-value-1")
	f.Add("key=abc&x=1", "abcd")
	f.Add("Bearer ", "zzzz")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, text, secret string) {
		got := Redact(text+" "+fakeKey+" "+text, secret)
		if strings.Contains(got, fakeKey) {
			t.Fatalf("Redact left %q in %q", fakeKey, got)
		}
		if len(secret) >= 4 {
			// Between the markers no piece may hold the secret (the marker
			// and its neighbours together may spell it by chance).
			for _, piece := range strings.Split(Redact(text+secret+text, secret), redacted) {
				if strings.Contains(piece, secret) {
					t.Fatalf("Redact left the registered secret %q in piece %q", secret, piece)
				}
			}
		}
		if !secretValue.MatchString(text) && !secretAssign.MatchString(text) && Redact(text) != text {
			t.Fatalf("Redact changed credential-free text %q to %q", text, Redact(text))
		}
	})
}

// FuzzStripSecrets feeds arbitrary JSON objects as judge parameters: the
// result must never hold a credential-named field or a key-shaped value,
// and must still encode as JSON.
func FuzzStripSecrets(f *testing.F) {
	f.Add(`{"temperature":0,"api_key":"sk-abcdefghijklmnopqrstu"}`)
	f.Add(`{"headers":{"Authorization":"Bearer abcdefghij"},"list":["x","sk-abcdefghijklmnopqrstuvw"]}`)
	f.Add(`{"max_tokens":256}`)
	f.Fuzz(func(t *testing.T, js string) {
		var params map[string]any
		if json.Unmarshal([]byte(js), &params) != nil {
			return
		}
		out, _ := stripSecrets(params, nil)
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatalf("stripped params do not encode: %v", err)
		}
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					if isSecretName(k) {
						t.Fatalf("secret-named field %q kept in %s", k, b)
					}
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			case string:
				if secretValue.MatchString(x) {
					t.Fatalf("key-shaped value kept in %s", b)
				}
			}
		}
		walk(out)
	})
}

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
