package openai

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/prism-eval/prism/judge"
)

// Replies built byte for byte (issue 42: no wrong score, no surprise
// bill), each served as written.

// envelope is a chat completion around choices and usage, as JSON text.
func envelope(choices, usage string) string {
	return `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[` + choices +
		`],"usage":` + usage + `}`
}

// choiceJSON is one choice whose message members are msg (JSON text),
// with logprobs (JSON text) when not "".
func choiceJSON(msg, logprobs string) string {
	s := `{"index":0,"message":{"role":"assistant",` + msg + `},"finish_reason":"stop"`
	if logprobs != "" {
		s += `,"logprobs":{"content":[` + logprobs + `]}`
	}
	return s + `}`
}

const plainUsage = `{"prompt_tokens":60,"completion_tokens":5,"total_tokens":65}`

// serveOnce scores request() against body, served as is once, without
// retries.
func serveOnce(t *testing.T, body string, mod func(*judge.Config)) (judge.Result, error, *recorder) {
	t.Helper()
	rec := &recorder{}
	f := newFake(t, status(200, body))
	c := newClient(t, f.URL, rec, func(c *judge.Config) {
		c.Retries = 0
		if mod != nil {
			mod(c)
		}
	})
	res, err := c.Score(context.Background(), request())
	if n := f.calls(); n != 1 {
		t.Errorf("%d calls, want 1", n)
	}
	return res, err, rec
}

func expectedMode(c *judge.Config) { c.Mode, c.TopLogprobs = judge.ModeExpected, 5 }

// scoreTokens is the logprobs of `{"score": N}` whose N token has
// alternatives top (JSON text) and logprob lp (JSON text).
func scoreTokens(n, lp, top string) string {
	return `{"token":"{\"score\": ","logprob":0,"top_logprobs":[{"token":"{\"score\": ","logprob":0}]},` +
		`{"token":"` + n + `","logprob":` + lp + `,"top_logprobs":[` + top + `]},` +
		`{"token":"}","logprob":0,"top_logprobs":[{"token":"}","logprob":0}]}`
}

func TestExpectedReplyTolerance(t *testing.T) {
	cases := []struct {
		name  string
		n, lp string
		top   string
		score float64
		kind  judge.ErrorKind
	}{
		// Skipping the chosen token for being above 0 read these from
		// their tails: 5.18 and 9.
		{"6 at +2e-7", "6", "2e-7", `{"token":"6","logprob":2e-7},{"token":"5","logprob":-15.2},{"token":"7","logprob":-17.5}`, 6, ""},
		{"8 at +1e-6", "8", "1e-6", `{"token":"8","logprob":1e-6},{"token":"9","logprob":-16.3}`, 8, ""},
		// Σp = 1.81 was stored as 6.5.
		{"impossible mass", "6", "-0.1", `{"token":"6","logprob":-0.1},{"token":"7","logprob":-0.1}`, 0, judge.KindBadMass},
		{"positive logprob", "6", "0.5", `{"token":"6","logprob":0.5}`, 0, judge.KindBadMass},
	}
	for _, c := range cases {
		body := envelope(choiceJSON(`"content":"{\"score\": `+c.n+`}"`, scoreTokens(c.n, c.lp, c.top)), plainUsage)
		res, err, _ := serveOnce(t, body, expectedMode)
		if judge.KindOf(err) != c.kind {
			t.Errorf("%s: score %v, error %v; want kind %q", c.name, res.Score, err, c.kind)
			continue
		}
		if c.kind == "" && math.Abs(res.Score-c.score) > 1e-5 {
			t.Errorf("%s: score %v, want %v", c.name, res.Score, c.score)
		}
		if c.kind != "" && (res.HasScore || len(res.Samples) != 1 || res.Samples[0].Err == nil) {
			t.Errorf("%s: %+v is not a counted failure", c.name, res)
		}
	}
}

func TestAmbiguousEnvelope(t *testing.T) {
	three, nine := `"content":"{\"score\": 3}"`, `"content":"{\"score\": 9}"`
	cases := []struct {
		name, body string
		want       string // in the message; "" for a score of 3
	}{
		{"two content keys", envelope(choiceJSON(three+","+nine, ""), plainUsage), `key "content" twice`},
		{"content and Content", envelope(choiceJSON(three+`,"Content":"{\"score\": 9}"`, ""), plainUsage), `"content" and "Content"`},
		{"two choices", envelope(choiceJSON(three, "")+","+choiceJSON(nine, ""), plainUsage), "2 choices"},
		{"two usages", strings.Replace(envelope(choiceJSON(three, ""), plainUsage), `"usage":`, `"usage":{"prompt_tokens":1},"usage":`, 1), `key "usage" twice`},
		{"two logprobs", envelope(`{"index":0,"message":{"role":"assistant",`+three+`},"logprobs":null,"logprobs":null}`, plainUsage), `choices[0]: key "logprobs" twice`},
		// Keys no field reads say nothing twice.
		{"an unknown key twice", envelope(choiceJSON(three+`,"x_note":1,"x_note":2`, ""), plainUsage), ""},
		{"inside an extension", strings.Replace(envelope(choiceJSON(three, ""), plainUsage), `"model":"m"`, `"model":"m","x":{"a":1,"a":2}`, 1), ""},
	}
	for _, c := range cases {
		res, err, _ := serveOnce(t, c.body, nil)
		if c.want == "" {
			if err != nil || res.Score != 3 {
				t.Errorf("%s: %v, %v; want 3", c.name, res.Score, err)
			}
			continue
		}
		if judge.KindOf(err) != judge.KindAmbiguous || !strings.Contains(err.Error(), c.want) || res.HasScore {
			t.Errorf("%s: score %v (%v), error %v; want ambiguous naming %s", c.name, res.Score, res.HasScore, err, c.want)
		}
	}
	if why := Ambiguous([]byte(envelope(choiceJSON(three, ""), plainUsage))); why != "" {
		t.Errorf("a plain reply is ambiguous: %s", why)
	}
}

func TestImplausibleUsage(t *testing.T) {
	req := request()
	estPrompt := judge.EstimatePromptTokens(req.Messages)
	estOut := judge.EstimateCompletionTokens(`{"score": 3}`)
	cases := []struct {
		name                  string
		usage                 string
		prompt, cached, compl int
		note                  string // "" when the server's counts stand
	}{
		{"plausible", `{"prompt_tokens":60,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":32}}`, 60, 32, 5, ""},
		{"negative prompt", `{"prompt_tokens":-5000,"completion_tokens":5}`, estPrompt, 0, 5, "prompt_tokens -5000"},
		{"negative completion", `{"prompt_tokens":60,"completion_tokens":-1}`, 60, 0, estOut, "completion_tokens -1"},
		{"int64 max", `{"prompt_tokens":60,"completion_tokens":9223372036854775807}`, 60, 0, estOut, "completion_tokens 9223372036854775807"},
		{"more tokens than bytes", `{"prompt_tokens":100000,"completion_tokens":5}`, estPrompt, 0, 5, "prompt_tokens 100000"},
		{"cached above prompt", `{"prompt_tokens":60,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":61}}`, 60, 0, 5, "cached_tokens 61"},
	}
	for _, c := range cases {
		body := envelope(choiceJSON(`"content":"{\"score\": 3}"`, ""), c.usage)
		res, err, rec := serveOnce(t, body, nil)
		if err != nil || res.Score != 3 {
			t.Errorf("%s: %v, %v; the score stands", c.name, res.Score, err)
			continue
		}
		if res.PromptTokens != c.prompt || res.CachedPromptTokens != c.cached || res.CompletionTokens != c.compl {
			t.Errorf("%s: tokens %d/%d/%d, want %d/%d/%d", c.name, res.PromptTokens, res.CachedPromptTokens, res.CompletionTokens, c.prompt, c.cached, c.compl)
		}
		note := res.Samples[0].UsageNote
		if (c.note == "") != (note == "") || !strings.Contains(note, c.note) {
			t.Errorf("%s: note %q, want one naming %q", c.name, note, c.note)
		}
		if c.note != "" && (len(rec.logs) != 1 || !strings.Contains(rec.logs[0], c.note)) {
			t.Errorf("%s: log %q does not report it", c.name, rec.logs)
		}
	}
}
