package openai

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/prism-eval/prism/judge"
)

// TestModelRefusedLocally: a model go-openai refuses for chat completions
// fails every call as a configuration error, and nothing is sent.
func TestModelRefusedLocally(t *testing.T) {
	var sent atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sent.Add(1) }))
	t.Cleanup(s.Close)
	cfg := judge.Defaults()
	cfg.Backend, cfg.Model, cfg.BaseURL = judge.BackendOpenAI, goopenai.GPT3TextDavinci003, s.URL
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Score(context.Background(), request())
	if judge.KindOf(err) != judge.KindConfig || sent.Load() != 0 || len(res.Samples) != 1 {
		t.Fatalf("%+v %v, %d requests", res, err, sent.Load())
	}
}

// TestReasoningModels: a reasoning model's token limit goes out as
// max_completion_tokens (go-openai refuses max_tokens for it), and what
// go-openai refuses for one (logprobs) fails as a configuration error
// before anything is sent.
func TestReasoningModels(t *testing.T) {
	f := newFake(t, reply(`{"score": 6}`))
	c := newClient(t, f.URL, &recorder{}, func(c *judge.Config) { c.Model, c.MaxTokens = "gpt-5-mini", 64 })
	if res, err := c.Score(context.Background(), request()); err != nil || res.Score != 6 {
		t.Fatalf("%v %v", res.Score, err)
	}
	b := f.bodies[0]
	if _, has := b["max_tokens"]; has || b["max_completion_tokens"] != 64.0 {
		t.Errorf("max_tokens %v, max_completion_tokens %v; want only max_completion_tokens 64", b["max_tokens"], b["max_completion_tokens"])
	}
	c = newClient(t, f.URL, &recorder{}, func(c *judge.Config) { c.Model, c.Mode, c.TopLogprobs = "o3-mini", judge.ModeExpected, 5 })
	if _, err := c.Score(context.Background(), request()); judge.KindOf(err) != judge.KindConfig || f.calls() != 1 {
		t.Errorf("logprobs for o3-mini: %v after %d calls; want a config error, nothing sent", err, f.calls())
	}
}
