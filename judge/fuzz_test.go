package judge

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prism-eval/prism/banks"
)

func FuzzParseScore(f *testing.F) {
	for _, s := range []string{`{"score": 7}`, "```json\n{\"score\": \"8\"}\n```", "Score: 6", "7/10", "I cannot assist.",
		`{"score": 1e999}`, `{"score": -0}`, `{"score": 99999999999999999999999}`, "score: +3.0", "", "{\"score\":",
		"I cannot rate this summary on a scale of 1 to 10.", `{"score": 0.7e1}`, `Sure! {"score": 7, "x": {"score": 3}}`,
		`{"a" {"score": 7}`, "**Score:** 9", `{"score": 3} {"score": 5}`, `{"score": "1e1"}`} {
		f.Add(s, 1, 10)
	}
	f.Fuzz(func(t *testing.T, text string, lo, hi int) {
		sc := banks.Scale{Min: lo, Max: hi}
		v, err := ParseScore(text, sc)
		if err != nil {
			switch KindOf(err) {
			case KindUnparseable, KindOutOfRange, KindRefusal:
			default:
				t.Fatalf("ParseScore(%q) error of kind %q: %v", text, KindOf(err), err)
			}
			return
		}
		if v < lo || v > hi {
			t.Fatalf("ParseScore(%q, %d–%d) = %d outside the scale", text, lo, hi, v)
		}
		// A score is always a JSON number whose characters the span covers.
		f, span, _ := LocateScore(text)
		if span.Start < 0 || span.End > len(text) || span.Start >= span.End {
			t.Fatalf("span %+v outside %q", span, text)
		}
		lit := text[span.Start:span.End]
		if g, err := strconv.ParseFloat(lit, 64); !reJSONNumber.MatchString(lit) || err != nil || g != f || f != float64(v) {
			t.Fatalf("ParseScore(%q) = %d but the span holds %q", text, v, lit)
		}
	})
}

// tokensFrom splits s at '|' into tokens; each token's alternatives are
// itself and the tokens after it, with log-probabilities read from p.
func tokensFrom(s string, p []byte) []TokenLogprob {
	parts := strings.Split(s, "|")
	out := make([]TokenLogprob, len(parts))
	k := 0
	next := func() float64 {
		if len(p) == 0 {
			return -1
		}
		b := p[k%len(p)]
		k++
		if b == 255 {
			return math.NaN()
		}
		return -float64(b) / 16
	}
	for i, tok := range parts {
		out[i] = TokenLogprob{Token: tok, Logprob: next()}
		for j := i; j < len(parts) && j < i+4; j++ {
			out[i].Top = append(out[i].Top, TopLogprob{Token: parts[j], Logprob: next()})
		}
	}
	return out
}

func FuzzReadExpected(f *testing.F) {
	f.Add(`{"score": |7|}`, []byte{0, 8, 16}, 1, 10)
	f.Add(`{"score": |1|0|}`, []byte{3, 1, 4, 1, 5, 9, 2, 6}, 1, 10)
	f.Add(`Score:| 8|5|.`, []byte{1, 2}, 0, 100)
	f.Add(`I cannot| do that`, []byte{}, 0, 4)
	f.Fuzz(func(t *testing.T, s string, p []byte, lo, hi int) {
		sc := banks.Scale{Min: lo, Max: hi}
		ex, err := ReadExpected(tokensFrom(s, p), sc)
		if err != nil {
			if KindOf(err) == "" {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if !(ex.Mass > 0) || ex.Mass > 1+LogprobTolerance || math.IsNaN(ex.Score) || ex.Score < float64(lo)-1e-9 || ex.Score > float64(hi)+1e-9 {
			t.Fatalf("ReadExpected(%q) = %+v on %d–%d", s, ex, lo, hi)
		}
	})
}

func FuzzLocateBatch(f *testing.F) {
	f.Add(`{"scores": {"1": 7, "2": 5}}`, "1,2")
	f.Add(`[{"id": "a", "score": 3}]`, "a,b")
	f.Add(`{"Summary 2": 9}`, "x,y,z")
	f.Add(`Sure: {"scores": {"1": 0.7e1, "2": "5", "1": 7}}`, "1,2")
	f.Add(`[{"id": 1, "score": 1e1}]`, "1")
	f.Fuzz(func(t *testing.T, text, keys string) {
		ks := strings.Split(keys, ",")
		items := ParseBatch(text, ks, ks, ten)
		if len(items) != len(ks) {
			t.Fatalf("%d items for %d keys", len(items), len(ks))
		}
		for i, it := range items {
			if it.HasScore == (it.Err != nil) {
				t.Fatalf("item %d: has %v, err %v", i, it.HasScore, it.Err)
			}
			if it.HasScore && (it.Score < 1 || it.Score > 10) {
				t.Fatalf("item %d score %v outside 1–10", i, it.Score)
			}
		}
		for i, l := range LocateBatch(text, ks) {
			if !l.Found {
				continue
			}
			if l.Span.Start < 0 || l.Span.End > len(text) || l.Span.Start >= l.Span.End {
				t.Fatalf("item %d: span %+v outside %q", i, l.Span, text)
			}
			lit := text[l.Span.Start:l.Span.End]
			if g, err := strconv.ParseFloat(lit, 64); !reJSONNumber.MatchString(lit) || err != nil || g != l.Value {
				t.Fatalf("item %d = %v but the span holds %q", i, l.Value, lit)
			}
		}
	})
}

func FuzzLoadConfig(f *testing.F) {
	f.Add("backend = \"openai\"\nmodel = \"m\"\ntimeout = \"30s\"\n")
	f.Add("mode = \"expected\"\ntop_logprobs = 5\nseed = -1\n")
	f.Add("[x]\ny = 1\n")
	f.Add("api_key = 3\n")
	f.Fuzz(func(t *testing.T, body string) {
		p := filepath.Join(t.TempDir(), "c.toml")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := LoadConfig(p)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("loaded an invalid config: %v", err)
		}
	})
}
