// Package openai is prism's judge backend for any OpenAI-compatible
// chat-completions server (OpenAI, OpenRouter, vLLM, Ollama, llama.cpp's
// server, LM Studio): go-openai's client over net/http, under prism's
// retry layer (Transport, an http.RoundTripper), which also refuses
// ambiguous replies (envelope.go), and exact score reading (integer JSON
// scores or expected scores from top_logprobs).
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

// Client is a judge.Judge over one model of one server.
type Client struct {
	cfg       judge.Config
	key       string
	api       *goopenai.Client
	transport *Transport
	// schemaOff is set once the server rejected json_schema (FormatAuto).
	schemaOff atomic.Bool
}

// Option adjusts a Client.
type Option func(*Client)

// WithBaseTransport sets the HTTP transport under the retry layer
// (default: HTTPTransport()).
func WithBaseTransport(rt http.RoundTripper) Option {
	return func(c *Client) { c.transport.Base = rt }
}

// WithSleep replaces the retry wait (tests record waits instead).
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Client) { c.transport.Sleep = sleep }
}

// WithClock replaces the clock used for HTTP-date Retry-After values.
func WithClock(now func() time.Time) Option { return func(c *Client) { c.transport.Now = now } }

// WithRand replaces the jitter draw.
func WithRand(r func() float64) Option { return func(c *Client) { c.transport.Rand = r } }

// WithLog receives one line per retry (already redacted).
func WithLog(log func(string)) Option {
	return func(c *Client) {
		c.transport.Log = func(s string) { log(c.redact(judge.SanitizeServerText(s))) }
	}
}

// WithBackoff sets the first backoff delay and its cap.
func WithBackoff(base, cap time.Duration) Option {
	return func(c *Client) { c.transport.BaseDelay, c.transport.MaxDelay = base, cap }
}

// New returns a client for cfg (Backend must be "openai"). The base URL
// defaults to https://api.openai.com/v1; a local server needs no key.
func New(cfg judge.Config, opts ...Option) (*Client, error) {
	if cfg.Backend != judge.BackendOpenAI {
		return nil, &judge.Error{Kind: judge.KindConfig, Msg: fmt.Sprintf("backend %q is not %q", cfg.Backend, judge.BackendOpenAI)}
	}
	if err := cfg.Validate(); err != nil {
		return nil, &judge.Error{Kind: judge.KindConfig, Msg: err.Error()}
	}
	c := buildClient(cfg, opts)
	oc := goopenai.DefaultConfig(c.key)
	if cfg.BaseURL != "" {
		oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	oc.HTTPClient = &http.Client{Transport: c.transport}
	c.api = goopenai.NewClientWithConfig(oc)
	return c, nil
}

// buildClient is a client for cfg with its retry layer, opts applied.
func buildClient(cfg judge.Config, opts []Option) *Client {
	c := &Client{cfg: cfg, key: string(cfg.APIKey)}
	c.transport = &Transport{
		Retries: cfg.Retries,
		Timeout: time.Duration(cfg.Timeout),
		MaxWait: time.Duration(cfg.MaxRetryWait),
		MaxBody: cfg.MaxReplyBytes,
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// NewTransport is the retry layer a Client for cfg sends through, opts
// applied (the engine's limiter, backoff, log): another backend that
// speaks HTTP (judge/anthropic) sends through it, so its calls are
// retried, paced and bounded by the same rules.
func NewTransport(cfg judge.Config, opts ...Option) *Transport {
	return buildClient(cfg, opts).transport
}

// Name is "openai:MODEL".
func (c *Client) Name() string { return "openai:" + c.cfg.Model }

// Config returns the client's configuration (its key prints redacted).
func (c *Client) Config() judge.Config { return c.cfg }

// Score implements judge.Judge: cfg.Repeats calls, each kept as a Sample,
// averaged. An error that stops the run (auth, config, canceled) ends the
// repeats at once.
func (c *Client) Score(ctx context.Context, req banks.Request) (judge.Result, error) {
	var res judge.Result
	if err := checkRequest(req); err != nil {
		res.Err = err
		return res, err
	}
	ids := judge.ItemIDs(req)
	for r := range c.cfg.Repeats {
		s := c.sample(ctx, req, r)
		res.Samples = append(res.Samples, s)
		if s.Err != nil && s.Err.Kind.StopsRun() {
			res.Finish(ids)
			res.Err = s.Err
			return res, s.Err
		}
	}
	if err := res.Finish(ids); err != nil {
		return res, err
	}
	return res, nil
}

func checkRequest(req banks.Request) *judge.Error {
	switch {
	case len(req.Messages) == 0:
		return &judge.Error{Kind: judge.KindConfig, Msg: "request has no messages"}
	case req.Scale.Max <= req.Scale.Min:
		return &judge.Error{Kind: judge.KindConfig, Msg: fmt.Sprintf("scale %d–%d is empty", req.Scale.Min, req.Scale.Max)}
	case len(req.BatchIDs) != len(req.BatchTexts) && len(req.BatchTexts) > 0:
		return &judge.Error{Kind: judge.KindConfig, Msg: "batch ids and texts differ in length"}
	case req.Rubric != nil && len(req.BatchIDs) > 0:
		return &judge.Error{Kind: judge.KindConfig, Msg: "a rubric request is not listwise"}
	case req.Rubric != nil && (len(req.Rubric.Criteria) == 0 || req.Rubric.Kind == banks.RubricGEval && len(req.Rubric.Criteria) != 1):
		return &judge.Error{Kind: judge.KindConfig, Msg: "a rubric request asks every criterion (SAJA) or exactly one (G-Eval)"}
	}
	return nil
}

// sample makes one call (one repeat) and reads its score(s).
func (c *Client) sample(ctx context.Context, req banks.Request, repeat int) judge.Sample {
	creq, ci := c.chatRequest(req, repeat)
	start := time.Now()
	resp, err := c.api.CreateChatCompletion(withInfo(ctx, ci), creq)
	if err != nil && c.cfg.ResponseFormat == judge.FormatAuto && creq.ResponseFormat != nil && schemaRejected(err) {
		// The server does not take json_schema: drop it for this client
		// and ask again; the parser reads the plain reply (JSON or a bare number).
		c.schemaOff.Store(true)
		creq.ResponseFormat = nil
		ci2 := &callInfo{patch: ci.patch}
		resp, err = c.api.CreateChatCompletion(withInfo(ctx, ci2), creq)
		ci2.attempts += ci.attempts
		ci = ci2
	}
	s := judge.Sample{Latency: time.Since(start), Attempts: ci.attempts}
	if err != nil {
		s.Err = c.classify(ctx, err, ci)
		if ci.raw != "" {
			s.Raw = c.redact(ci.raw) // a bounded prefix of a too-large reply
		}
		return s
	}
	c.usage(&s, creq, resp)
	if len(resp.Choices) == 0 {
		s.Err = &judge.Error{Kind: judge.KindServer, Msg: "the answer has no choices", Attempts: ci.attempts}
		return s
	}
	if n := len(resp.Choices); n > 1 {
		// Which one is the score? Refused rather than guessed (envelope.go).
		s.Err = &judge.Error{Kind: judge.KindAmbiguous, Msg: fmt.Sprintf("the answer is ambiguous: %d choices (prism asks for one)", n), Attempts: ci.attempts}
		return s
	}
	ch := resp.Choices[0]
	rep := Reply{Content: ch.Message.Content, Refusal: ch.Message.Refusal, FinishReason: string(ch.FinishReason)}
	if ch.LogProbs != nil {
		rep.Logprobs = convertLogprobs(ch.LogProbs)
	}
	readReply(c.cfg.Mode, c.redact, &s, req, rep)
	if s.Err != nil {
		s.Err.Attempts = ci.attempts
	}
	return s
}

// usage fills s's token counts from resp's usage, implausible ones
// replaced by estimates (judge.CheckUsage) and reported: in the sample's
// UsageNote and the client's log.
func (c *Client) usage(s *judge.Sample, creq goopenai.ChatCompletionRequest, resp goopenai.ChatCompletionResponse) {
	u := judge.Usage{Prompt: resp.Usage.PromptTokens, Completion: resp.Usage.CompletionTokens}
	if d := resp.Usage.PromptTokensDetails; d != nil {
		u.CachedPrompt = d.CachedTokens
	}
	msgs := make([]banks.Message, len(creq.Messages))
	bytes := 0
	for i, m := range creq.Messages {
		msgs[i] = banks.Message{Role: m.Role, Content: m.Content}
		bytes += len(m.Role) + len(m.Content)
	}
	if rf := creq.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		if raw, ok := rf.JSONSchema.Schema.(json.RawMessage); ok {
			bytes += len(raw)
		}
	}
	reply := ""
	if len(resp.Choices) > 0 {
		reply = resp.Choices[0].Message.Content
	}
	est := judge.Usage{Prompt: judge.EstimatePromptTokens(msgs), Completion: judge.EstimateCompletionTokens(reply)}
	u, s.UsageNote = judge.CheckUsage(u, bytes, est)
	s.PromptTokens, s.CachedPromptTokens, s.CompletionTokens = u.Prompt, u.CachedPrompt, u.Completion
	if s.UsageNote != "" && c.transport.Log != nil {
		c.transport.Log(c.redact(judge.SanitizeServerText("judge: " + s.UsageNote)))
	}
}

// schemaRejected reports a 400 whose message blames the response format.
func schemaRejected(err error) bool {
	var ae *goopenai.APIError
	var re *goopenai.RequestError
	msg := ""
	switch {
	case errors.As(err, &ae) && ae.HTTPStatusCode == http.StatusBadRequest:
		msg = ae.Message
		if ae.Param != nil {
			msg += " " + *ae.Param
		}
	case errors.As(err, &re) && re.HTTPStatusCode == http.StatusBadRequest:
		msg = string(re.Body)
	default:
		return false
	}
	msg = strings.ToLower(msg)
	return strings.Contains(msg, "response_format") || strings.Contains(msg, "json_schema") || strings.Contains(msg, "schema")
}
