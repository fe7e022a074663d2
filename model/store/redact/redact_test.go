package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

const fakeKey = "sk-proj-TESTKEY0123456789abcdefXYZ"

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"api_key": true, "apiKey": true, "OPENAI_API_KEY": true, "token": true, "access-token": true,
		"Authorization": true, "password": true, "client_secret": true, "key": true,
		"max_tokens": false, "temperature": false, "top_p": false, "model": false, "keywords": false,
		"logit_bias": false, "seed": false,
	} {
		if got := isSecretName(name); got != want {
			t.Errorf("isSecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"401: Incorrect API key provided: " + fakeKey + ".", "401: Incorrect API key provided: [redacted]."},
		{"header Authorization: Bearer abc.def-123456", "header Authorization: [redacted]"},
		{"GET https://h/v1?key=AAAA1234&x=1 failed", "GET https://h/v1?key=[redacted]&x=1 failed"},
		{"timeout after 30s", "timeout after 30s"},
		{"my-own-secret-value leaked", "[redacted] leaked"},
	} {
		if got := Text(tc.in, "my-own-secret-value"); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// credentialCases are texts around secretValue's anchors: each anchor in
// several cases, with ſ and the Kelvin sign (which (?i) folds into s and
// k), near misses, and plain replies.
var credentialCases = []string{
	"", `{"score": 7}`, "The summary is fluent. Score: 4",
	"key sk-abcdefghijklmnop1234 here", "SK-ABCDEFGHIJKLMNOPQRST", "sK-abcdefghijklmnopqrst", "xsk-abcdefghijklmnopqrst",
	"rk-0123456789abcdef0", "pk-0123456789abcdef0", "sk-short",
	"AIzaSyA0123456789abcdefghijklmnopqrstu", "aiza0123456789abcdefghijklmnopqrstu", "AIZA", "aiz",
	"hf_abcdefghijklmnopqrstu", "HF_ABCDEFGHIJKLMNOPQRSTU", "gsk_abcdefghijklmnopqrstu", "GSK_abcdefghijklmnopqrstu",
	"xai-abcdefghijklmnopqrstu", "XAI-abcdefghijklmnopqrstu", "Bearer abc.def-ghi", "BEARER\tabcdefghij", "bearer",
	"ſk-abcdefghijklmnopqrst", "s\u212a-abcdefghijklmnopqrst", "\u212a", "ſ",
	"s-k-", "-_", "k-", "_", "a", "b", "éé sk-é", "日本語 AIza",
}

func TestCredentialPrefilter(t *testing.T) {
	for _, s := range credentialCases {
		checkCredentialPrefilter(t, s)
	}
	if mayHoldCredential(`{"score": 7}`) || mayHoldCredential("The summary is fluent and mostly consistent.") {
		t.Error("a plain reply was sent to the expression")
	}
}

// FuzzCredentialPrefilter checks that the prefilter never hides a match:
// redactValues is exactly secretValue's replacement.
func FuzzCredentialPrefilter(f *testing.F) {
	for _, s := range credentialCases {
		f.Add(s)
	}
	f.Fuzz(checkCredentialPrefilter)
}

func checkCredentialPrefilter(t *testing.T, s string) {
	if !mayHoldCredential(s) && secretValue.MatchString(s) {
		t.Fatalf("%q: secretValue matches, mayHoldCredential says no", s)
	}
	if got, want := redactValues(s), secretValue.ReplaceAllString(s, redacted); got != want {
		t.Fatalf("redactValues(%q) = %q, want %q", s, got, want)
	}
}

func BenchmarkRedactRaw(b *testing.B) {
	for _, c := range []struct{ name, s string }{
		{"score", `{"score": 7}`},
		{"explained", strings.Repeat("The summary is fluent and mostly consistent with the source, ", 8) + `{"score": 7}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = Reply(c.s, nil)
			}
		})
	}
}

// sink keeps benchmark results alive.
var sink any

// FuzzRedact checks that a registered secret never survives Text, that
// a credential-shaped token inserted anywhere is removed, and that text
// without credentials passes through unchanged.
func FuzzRedact(f *testing.F) {
	f.Add("401 Unauthorized", "secret-value-1")
	f.Add("key=abc&x=1", "abcd")
	f.Add("Bearer ", "zzzz")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, text, secret string) {
		got := Text(text+" "+fakeKey+" "+text, secret)
		if strings.Contains(got, fakeKey) {
			t.Fatalf("Text left %q in %q", fakeKey, got)
		}
		if len(secret) >= 4 {
			// Between the markers no piece may hold the secret (the marker
			// and its neighbours together may spell it by chance).
			for _, piece := range strings.Split(Text(text+secret+text, secret), redacted) {
				if strings.Contains(piece, secret) {
					t.Fatalf("Text left the registered secret %q in piece %q", secret, piece)
				}
			}
		}
		if !secretValue.MatchString(text) && !secretAssign.MatchString(text) && Text(text) != text {
			t.Fatalf("Text changed credential-free text %q to %q", text, Text(text))
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
		out, _ := Params(params, nil)
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
