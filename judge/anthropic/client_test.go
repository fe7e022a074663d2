package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/openai"
)

const fakeKey = "sk-ant-TEST-1a2b3c4d5e6f-DO-NOT-LEAK"

func request() banks.Request {
	return banks.Request{Messages: []banks.Message{
		{Role: "system", Content: "You are evaluating machine-generated summaries of news articles."},
		{Role: "user", Content: "Source article. … Summary. … Respond with only a JSON object: {\"score\": <int 1–10>}."},
	}, Scale: banks.Scale{Min: 1, Max: 10}}
}

// step is one answer of the fake Messages API: a status and a body.
type step struct {
	status int
	body   string
}

func text(t string) step { return textStop(t, "end_turn") }

func textStop(t, stop string) step {
	b, _ := json.Marshal(t)
	return step{200, fmt.Sprintf(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":%s}],"stop_reason":%q,"usage":{"input_tokens":40,"output_tokens":6,"cache_read_input_tokens":10}}`, b, stop)}
}

func apiErr(status int, typ, msg string) step {
	return step{status, fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q}}`, typ, msg)}
}

// fake is a Messages API that answers with its script (the last step
// repeats) and keeps the request bodies.
type fake struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	paths  []string
}

func newFake(t *testing.T, script ...step) *fake {
	f := &fake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		f.mu.Lock()
		n := len(f.bodies)
		f.bodies = append(f.bodies, m)
		f.paths = append(f.paths, r.URL.Path+" "+r.Header.Get("Authorization"))
		f.mu.Unlock()
		s := script[min(n, len(script)-1)]
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.status)
		io.WriteString(w, s.body)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fake) calls() int { f.mu.Lock(); defer f.mu.Unlock(); return len(f.bodies) }

func newClient(t *testing.T, url string, mod func(*judge.Config)) *Client {
	t.Helper()
	cfg := judge.Defaults()
	cfg.Backend, cfg.Model, cfg.BaseURL, cfg.APIKey = judge.BackendAnthropic, "claude-x", url, fakeKey
	cfg.Retries = 2
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg, openai.WithSleep(func(ctx context.Context, d time.Duration) error { return ctx.Err() }))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The reply-reading cases of the openai client (judge/openai's
// TestClientCases) that do not need logprobs, over the Messages API.
func TestClientCases(t *testing.T) {
	cases := []struct {
		name     string
		script   []step
		wantKind judge.ErrorKind
		want     float64
		calls    int
	}{
		{"plain JSON", []step{text(`{"score": 7}`)}, "", 7, 1},
		{"code fence and prose", []step{text("Here is my rating.\n```json\n{\"score\": \"8\"}\n```\nHope this helps.")}, "", 8, 1},
		{"bare labelled score", []step{text("Score: 6\n")}, "", 6, 1},
		{"prose ending in a score", []step{text("The summary is accurate but thin. Score: 6")}, judge.KindUnparseable, 0, 1},
		{"refusal ending in a number", []step{text("I cannot rate this summary on a scale of 1 to 10.")}, judge.KindRefusal, 0, 1},
		{"JSON exponent", []step{text(`{"score": 1e1}`)}, "", 10, 1},
		{"out of range", []step{text(`{"score": 11}`)}, judge.KindOutOfRange, 0, 1},
		{"not an integer", []step{text(`{"score": 7.5}`)}, judge.KindUnparseable, 0, 1},
		{"no number", []step{text(`The summary is fine.`)}, judge.KindUnparseable, 0, 1},
		{"refusal text", []step{text("I'm sorry, but I can't help with rating this content.")}, judge.KindRefusal, 0, 1},
		{"stop_reason refusal", []step{textStop("", "refusal")}, judge.KindRefusal, 0, 1},
		{"cut by max_tokens", []step{textStop(`{"sco`, "max_tokens")}, judge.KindUnparseable, 0, 1},
		{"429 then ok", []step{apiErr(429, "rate_limit_error", "slow down"), text(`{"score": 5}`)}, "", 5, 2},
		{"529 overloaded then ok", []step{apiErr(529, "overloaded_error", "Overloaded"), text(`{"score": 9}`)}, "", 9, 2},
		{"500 forever", []step{apiErr(500, "api_error", "boom")}, judge.KindServer, 0, 3},
		{"non-JSON 200", []step{{200, "<html>proxy login</html>"}}, judge.KindServer, 0, 3},
		{"401 is never retried", []step{apiErr(401, "authentication_error", "invalid x-api-key "+fakeKey)}, judge.KindAuth, 0, 1},
		{"404 model", []step{apiErr(404, "not_found_error", "model: claude-x")}, judge.KindNotFound, 0, 1},
		{"400 is a bad request", []step{apiErr(400, "invalid_request_error", "messages: field required")}, judge.KindBadRequest, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.script...)
			res, err := newClient(t, f.URL, nil).Score(context.Background(), request())
			if got := judge.KindOf(err); got != tc.wantKind {
				t.Fatalf("error kind %q (%v), want %q", got, err, tc.wantKind)
			}
			if tc.wantKind == "" && (!res.HasScore || res.Score != tc.want) {
				t.Errorf("score %v (has %v), want %v", res.Score, res.HasScore, tc.want)
			}
			if tc.wantKind != "" && (res.HasScore || !math.IsNaN(res.Score) && res.Score != 0) {
				t.Errorf("a failure scored %v", res.Score)
			}
			if f.calls() != tc.calls || res.Samples[0].Attempts != tc.calls {
				t.Errorf("server saw %d attempts, sample says %d, want %d", f.calls(), res.Samples[0].Attempts, tc.calls)
			}
			if err != nil && strings.Contains(err.Error(), fakeKey) {
				t.Errorf("the API key leaked: %v", err)
			}
		})
	}
}

func TestRequestBody(t *testing.T) {
	f := newFake(t, text(`{"score": 7}`))
	zero, one := 0.0, 1.0
	c := newClient(t, f.URL, func(c *judge.Config) { c.Temperature, c.TopP, c.MaxTokens = &zero, &one, 16 })
	res, err := c.Score(context.Background(), request())
	if err != nil || res.Score != 7 {
		t.Fatal(res.Score, err)
	}
	if res.PromptTokens != 50 || res.CachedPromptTokens != 10 || res.CompletionTokens != 6 {
		t.Errorf("tokens %d/%d/%d, want 50/10/6", res.PromptTokens, res.CachedPromptTokens, res.CompletionTokens)
	}
	b := f.bodies[0]
	sys, _ := json.Marshal(b["system"])
	if b["model"] != "claude-x" || b["max_tokens"] != 16.0 || b["temperature"] != 0.0 || !strings.Contains(string(sys), "evaluating machine-generated") {
		t.Errorf("body %v", b)
	}
	if _, has := b["top_p"]; has {
		t.Error("top_p 1 was sent")
	}
	if msgs, _ := b["messages"].([]any); len(msgs) != 1 {
		t.Errorf("messages %v, want the user message alone", b["messages"])
	}
	if !strings.HasPrefix(f.paths[0], "/v1/messages Bearer "+fakeKey) {
		t.Errorf("request %q", f.paths[0])
	}
}

// Sampled G-Eval: N calls at temperature 1, averaged; one failed sample
// fails the request, never a mean of fewer.
func TestSampledRepeats(t *testing.T) {
	f := newFake(t, text(`{"score": 2}`), text(`{"score": 4}`), text(`{"score": 9}`))
	c := newClient(t, f.URL, func(c *judge.Config) { c.Repeats = 3 })
	res, err := c.Score(context.Background(), request())
	if err != nil || len(res.Samples) != 3 || res.Score != 5 {
		t.Fatalf("samples %d, score %v, %v", len(res.Samples), res.Score, err)
	}
}

func TestExpectedModeIsRefused(t *testing.T) {
	cfg := judge.Defaults()
	cfg.Backend, cfg.Model, cfg.Mode = judge.BackendAnthropic, "claude-x", judge.ModeExpected
	_, err := New(cfg)
	if judge.KindOf(err) != judge.KindConfig || !strings.Contains(err.Error(), "returns none") {
		t.Fatalf("err %v", err)
	}
}
