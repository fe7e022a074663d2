// Package anthropic is prism's judge backend for Anthropic's Messages API,
// online: the official Go SDK over net/http, sending through the openai
// package's retry layer (openai.Transport: the same retries, waits,
// reply bounds and the engine's pacing), its replies read by the same
// reader as an OpenAI-compatible reply (openai.ReadReply: refusals,
// ranges, failures never scores). The Messages API returns no logprobs,
// so only integer mode is offered (and sampled G-Eval, which is integer
// mode N times at temperature 1); expected mode is refused.
package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/openai"
)

// DefaultBaseURL is where the Messages API is when base_url is unset.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens is the max_tokens sent when the judge sets none: the
// Messages API requires one (the batch export's too: engine.AnthropicMaxTokens).
const DefaultMaxTokens = 1024

// ErrExpectedMode is why expected mode is refused.
const ErrExpectedMode = "expected mode reads the score's logprobs, and Anthropic's Messages API returns none: use --mode integer"

// Client is a judge.Judge over one Anthropic model.
type Client struct {
	cfg       judge.Config
	key       string
	api       sdk.Client
	transport *openai.Transport
}

// New returns a client for cfg (Backend "anthropic", integer mode). opts
// are the openai client's (the engine's limiter transport, backoff, log):
// they set the retry layer the SDK sends through.
func New(cfg judge.Config, opts ...openai.Option) (*Client, error) {
	if cfg.Backend != judge.BackendAnthropic {
		return nil, &judge.Error{Kind: judge.KindConfig, Msg: fmt.Sprintf("backend %q is not %q", cfg.Backend, judge.BackendAnthropic)}
	}
	if err := cfg.Validate(); err != nil {
		return nil, &judge.Error{Kind: judge.KindConfig, Msg: err.Error()}
	}
	if cfg.Mode == judge.ModeExpected {
		return nil, &judge.Error{Kind: judge.KindConfig, Msg: ErrExpectedMode}
	}
	c := &Client{cfg: cfg, key: string(cfg.APIKey), transport: openai.NewTransport(cfg, opts...)}
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	// The SDK's own retries are off: the retry layer below it retries,
	// as for every other backend.
	c.api = sdk.NewClient(option.WithAPIKey(c.key), option.WithBaseURL(base),
		option.WithHTTPClient(&http.Client{Transport: c.transport}), option.WithMaxRetries(0))
	return c, nil
}

// Name is "anthropic:MODEL".
func (c *Client) Name() string { return "anthropic:" + c.cfg.Model }

// Score implements judge.Judge: cfg.Repeats calls, each kept as a Sample,
// averaged. An error that stops the run (auth, config, canceled) ends the
// repeats at once.
func (c *Client) Score(ctx context.Context, req banks.Request) (judge.Result, error) {
	var res judge.Result
	if len(req.Messages) == 0 || req.Scale.Max <= req.Scale.Min {
		res.Err = &judge.Error{Kind: judge.KindConfig, Msg: "request has no messages or an empty scale"}
		return res, res.Err
	}
	ids := judge.ItemIDs(req)
	for range c.cfg.Repeats {
		s := c.sample(ctx, req)
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

// params is the Messages API request for req: system messages joined as
// system, the rest as messages. The SDK's v2 params have no temperature
// or top_p (deprecated there); the judge's are set in the body when
// given, and top_p 1 (no cut) is not sent, as recent models refuse
// temperature and top_p together.
func (c *Client) params(req banks.Request) (sdk.MessageNewParams, []option.RequestOption) {
	p := sdk.MessageNewParams{Model: sdk.Model(c.cfg.Model), MaxTokens: int64(c.cfg.MaxTokens)}
	if p.MaxTokens <= 0 {
		p.MaxTokens = DefaultMaxTokens
	}
	var system []string
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = append(system, m.Content)
		case "assistant":
			p.Messages = append(p.Messages, sdk.NewAssistantMessage(sdk.NewTextBlock(m.Content)))
		default:
			p.Messages = append(p.Messages, sdk.NewUserMessage(sdk.NewTextBlock(m.Content)))
		}
	}
	if len(system) > 0 {
		p.System = []sdk.TextBlockParam{{Text: strings.Join(system, "\n\n")}}
	}
	var opts []option.RequestOption
	if t := c.cfg.Temperature; t != nil {
		opts = append(opts, option.WithJSONSet("temperature", *t))
	}
	if tp := c.cfg.TopP; tp != nil && *tp < 1 {
		opts = append(opts, option.WithJSONSet("top_p", *tp))
	}
	return p, opts
}

// sample makes one call and reads its score(s) as an OpenAI-compatible
// reply is read.
func (c *Client) sample(ctx context.Context, req banks.Request) judge.Sample {
	cctx, stats := openai.TrackCall(ctx)
	start := time.Now()
	p, opts := c.params(req)
	msg, err := c.api.Messages.New(cctx, p, opts...)
	st := stats()
	if err != nil {
		return judge.Sample{Latency: time.Since(start), Attempts: st.Attempts, Err: c.classify(ctx, err, st)}
	}
	var text strings.Builder
	for _, b := range msg.Content {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	rep := openai.Reply{Content: text.String(), FinishReason: finishReason(string(msg.StopReason))}
	if msg.StopReason == sdk.StopReasonRefusal {
		rep.Refusal = "the model refused (stop_reason refusal)"
	}
	s := openai.ReadReply(c.cfg, req, rep)
	s.Latency, s.Attempts = time.Since(start), st.Attempts
	if s.Err != nil {
		s.Err.Attempts = st.Attempts
	}
	u := judge.Usage{Prompt: int(msg.Usage.InputTokens + msg.Usage.CacheReadInputTokens),
		CachedPrompt: int(msg.Usage.CacheReadInputTokens), Completion: int(msg.Usage.OutputTokens)}
	bytes := 0
	for _, m := range req.Messages {
		bytes += len(m.Role) + len(m.Content)
	}
	est := judge.Usage{Prompt: judge.EstimatePromptTokens(req.Messages), Completion: judge.EstimateCompletionTokens(rep.Content)}
	u, s.UsageNote = judge.CheckUsage(u, bytes, est)
	s.PromptTokens, s.CachedPromptTokens, s.CompletionTokens = u.Prompt, u.CachedPrompt, u.Completion
	return s
}

// finishReason is a stop reason in OpenAI's words, which the reader
// knows ("length" marks a reply cut by max_tokens).
func finishReason(stop string) string {
	switch stop {
	case "max_tokens":
		return "length"
	case "end_turn", "stop_sequence":
		return "stop"
	}
	return stop
}

// classify turns an SDK or retry-layer error into a *judge.Error whose
// message is sanitised, redacted and bounded.
func (c *Client) classify(ctx context.Context, err error, st openai.CallStats) *judge.Error {
	e := &judge.Error{Attempts: st.Attempts, RetryAfter: st.RetryAfter}
	var ae *sdk.Error
	switch {
	case ctx.Err() != nil:
		e.Kind, e.Msg = judge.KindCanceled, ctx.Err().Error()
		return e
	case errors.As(err, &ae):
		e.Status, e.Kind = ae.StatusCode, judge.StatusKind(ae.StatusCode)
		e.Msg = ae.Message
		if e.Msg == "" {
			e.Msg = http.StatusText(ae.StatusCode)
		}
	default:
		if kind, status, msg, ok := openai.TransportFailure(err); ok {
			e.Kind, e.Status, e.Msg = kind, status, msg
		} else if st.Kind != "" {
			e.Kind, e.Status, e.Msg = st.Kind, st.Status, st.Detail
		} else {
			e.Kind, e.Status, e.Msg = judge.KindServer, st.Status, "the answer is not a message: "+err.Error()
		}
	}
	e.Msg = openai.ClipMessage(openai.Redact(c.key, judge.SanitizeServerText(e.Msg)))
	return e
}
