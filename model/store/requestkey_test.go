package store

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestRequestKeyReference(t *testing.T) {
	// Reference values computed independently with Python's hashlib over
	// the documented encoding: sha256 of uvarint-length-prefixed fields
	// "prism-request-key-v1", backend, model, params JSON, then the message
	// count as a uvarint and each role and content length-prefixed.
	for _, tc := range []struct {
		backend, model string
		params         map[string]any
		msgs           []Message
		want           string
	}{
		{"openai", "gpt-4o-mini", map[string]any{"temperature": 0, "max_tokens": 256},
			[]Message{{"system", "You are a judge."}, {"user", "Score it."}},
			"5545623c0735b4cf06bbe60abd3277670df52eccb1498e4233d96e657671471f"},
		{"offline", "", nil, nil,
			"ee6d5a61531518d7ac820bb94cf1af8b1bc25081da412c522a78fa05df0fa2c2"},
	} {
		got, err := RequestKey(tc.backend, tc.model, tc.params, tc.msgs)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("RequestKey(%s, %s) = %s, want %s", tc.backend, tc.model, got, tc.want)
		}
	}
}

func TestRequestKeyDistinguishes(t *testing.T) {
	base := func() (string, string, map[string]any, []Message) {
		return "openai", "m", map[string]any{"temperature": 0.0}, []Message{{"system", "ab"}, {"user", "c"}}
	}
	b, m, p, msgs := base()
	ref, err := RequestKey(b, m, p, msgs)
	if err != nil {
		t.Fatal(err)
	}
	variants := map[string]func() (string, string, map[string]any, []Message){
		"backend": func() (string, string, map[string]any, []Message) { _, m, p, x := base(); return "vllm", m, p, x },
		"model":   func() (string, string, map[string]any, []Message) { b, _, p, x := base(); return b, "m2", p, x },
		"params": func() (string, string, map[string]any, []Message) {
			b, m, _, x := base()
			return b, m, map[string]any{"temperature": 0.7}, x
		},
		"role": func() (string, string, map[string]any, []Message) {
			b, m, p, _ := base()
			return b, m, p, []Message{{"user", "ab"}, {"user", "c"}}
		},
		"resplit": func() (string, string, map[string]any, []Message) {
			b, m, p, _ := base()
			return b, m, p, []Message{{"system", "a"}, {"user", "bc"}}
		},
		"moved field": func() (string, string, map[string]any, []Message) { b, _, p, x := base(); return b + "m", "", p, x },
		"extra msg": func() (string, string, map[string]any, []Message) {
			b, m, p, x := base()
			return b, m, p, append(x, Message{})
		},
	}
	for name, v := range variants {
		b, m, p, msgs := v()
		got, err := RequestKey(b, m, p, msgs)
		if err != nil {
			t.Fatal(err)
		}
		if got == ref {
			t.Errorf("changing %s left the key unchanged", name)
		}
	}
	// Map order cannot matter: encoding/json sorts keys.
	k1, _ := RequestKey("x", "y", map[string]any{"a": 1, "b": 2, "c": map[string]any{"z": 1, "y": 2}}, nil)
	k2, _ := RequestKey("x", "y", map[string]any{"c": map[string]any{"y": 2, "z": 1}, "b": 2, "a": 1}, nil)
	if k1 != k2 {
		t.Error("the key depends on map iteration order")
	}
	if _, err := RequestKey("x", "y", map[string]any{"t": math.NaN()}, nil); err == nil {
		t.Error("NaN parameter: want an error, JSON cannot hold it")
	}
}

func ExampleRequestKey() {
	key, err := RequestKey("openai", "gpt-4o-mini", map[string]any{"temperature": 0, "max_tokens": 256},
		[]Message{{Role: "system", Content: "You are a judge."}, {Role: "user", Content: "Score it."}})
	if err != nil {
		panic(err)
	}
	fmt.Println(key)
	// Output: 5545623c0735b4cf06bbe60abd3277670df52eccb1498e4233d96e657671471f
}

// One Keyer keys a sequence of requests, longer and shorter, exactly as
// RequestKey keys each alone: its reused buffer never leaks one request
// into the next.
func TestKeyerReuse(t *testing.T) {
	params := map[string]any{"temperature": 0}
	k, err := NewKeyer("openai", "m", params)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("source text ", 500)
	for i, msgs := range [][]Message{
		{{"system", "You are a judge."}, {"user", long}},
		{{"system", "short"}},
		nil,
		{{"system", "You are a judge. Weigh accuracy."}, {"user", long[:100]}},
		{{"system", "short"}},
	} {
		want, err := RequestKey("openai", "m", params, msgs)
		if err != nil {
			t.Fatal(err)
		}
		if got := k.Key(msgs); got != want {
			t.Errorf("request %d: Keyer %s, RequestKey %s", i, got, want)
		}
	}
	if _, err := NewKeyer("openai", "m", map[string]any{"f": func() {}}); err == nil {
		t.Error("params that JSON cannot encode gave no error")
	}
}

// Keying a request of a few kilobytes allocates only the key.
func BenchmarkKeyer(b *testing.B) {
	k, err := NewKeyer("offline", "", nil)
	if err != nil {
		b.Fatal(err)
	}
	msgs := []Message{{"system", "You are a judge. Weigh accuracy more heavily."}, {"user", strings.Repeat("source text ", 300)}}
	b.ReportAllocs()
	for b.Loop() {
		keySink = k.Key(msgs)
	}
}

var keySink string
