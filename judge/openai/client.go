// Package openai is prism's judge backend for any OpenAI-compatible
// chat-completions server (OpenAI, OpenRouter, vLLM, Ollama, llama.cpp's
// server, LM Studio), built on github.com/sashabaranov/go-openai with its
// own retry layer (Transport), its own HTTP/1.1 client for plain http://
// servers (h1Transport, under HTTPTransport), its own encoder for the
// request body (encodeChat: json.Marshal's bytes exactly), its own
// decoder for the usual chat-completion reply (fastReply: go-openai's
// value exactly, the rest left to encoding/json) and exact score reading
// (integer JSON scores or expected scores from top_logprobs).
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
	send      *sender
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
	oc := goopenai.DefaultConfig(c.key)
	if cfg.BaseURL != "" {
		oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	c.send = newSender(oc, cfg.Model, &http.Client{Transport: c.transport})
	return c, nil
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
		return &judge.Error{Kind: judge.KindConfig, Msg: "a rubric request is not batched"}
	case req.Rubric != nil && (len(req.Rubric.Criteria) == 0 || req.Rubric.Kind == banks.RubricGEval && len(req.Rubric.Criteria) != 1):
		return &judge.Error{Kind: judge.KindConfig, Msg: "a rubric request asks every criterion (SAJA) or exactly one (G-Eval)"}
	}
	return nil
}

// sample makes one call (one repeat) and reads its score(s).
func (c *Client) sample(ctx context.Context, req banks.Request, repeat int) judge.Sample {
	creq, ci := c.chatRequest(req, repeat)
	start := time.Now()
	resp, err := c.send.create(withInfo(ctx, ci), creq)
	if err != nil && c.cfg.ResponseFormat == judge.FormatAuto && creq.ResponseFormat != nil && schemaRejected(err) {
		// The server does not take json_schema: drop it for this client
		// and ask again; the parser reads the plain reply (JSON or a bare number).
		c.schemaOff.Store(true)
		creq.ResponseFormat = nil
		ci2 := &callInfo{patch: ci.patch}
		resp, err = c.send.create(withInfo(ctx, ci2), creq)
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

// Reply is the first choice of a chat completion: what a sample reads.
// A batch output line carries one (judge/engine's ImportBatch).
type Reply struct {
	Content      string
	Refusal      string // the message's refusal, when the model declined
	FinishReason string
	Logprobs     []judge.TokenLogprob
}

// ReadReply reads a reply to req as a Client for cfg reads a live one:
// a refusal or content filter is KindRefusal; otherwise the score (bank
// requests) or the ratings (rubric requests: a SAJA reply's items, a
// G-Eval rating or its logprob mean) in cfg's mode. The sample has no
// token counts, latency or attempts; the caller fills them.
func ReadReply(cfg judge.Config, req banks.Request, r Reply) judge.Sample {
	var s judge.Sample
	key := string(cfg.APIKey)
	readReply(cfg.Mode, func(t string) string { return redactKey(key, t) }, &s, req, r)
	return s
}

// readReply fills s from a reply: the text (redacted: a reply is stored,
// a key echoed into it must not be), the logprobs, and the score or the
// error.
func readReply(mode judge.Mode, redact func(string) string, s *judge.Sample, req banks.Request, r Reply) {
	s.Raw = redact(r.Content)
	s.Logprobs = r.Logprobs
	if r.Refusal != "" || goopenai.FinishReason(r.FinishReason) == goopenai.FinishReasonContentFilter {
		msg := r.Refusal
		if msg == "" {
			msg = "content filter"
		}
		s.Err = &judge.Error{Kind: judge.KindRefusal, Msg: clipMsg(redact(judge.SanitizeServerText(msg)))}
		return
	}
	read(mode, s, req, goopenai.FinishReason(r.FinishReason))
	if s.Err != nil {
		s.Err.Msg = redact(judge.SanitizeServerText(s.Err.Msg))
	}
}

// read parses the reply of a sample into its score or items.
func read(mode judge.Mode, s *judge.Sample, req banks.Request, finish goopenai.FinishReason) {
	truncated := func(e *judge.Error) *judge.Error {
		if finish == goopenai.FinishReasonLength && e.Kind == judge.KindUnparseable {
			e.Msg += " (reply cut by max_tokens)"
		}
		return e
	}
	if req.Rubric != nil {
		readRubric(mode, s, req, truncated)
		return
	}
	if mode == judge.ModeExpected {
		if len(s.Logprobs) == 0 {
			s.Err = &judge.Error{Kind: judge.KindNoLogprobs, Msg: "the server returned no logprobs; it was not scored another way"}
			return
		}
		if len(req.BatchIDs) > 0 {
			s.Items = expectedItems(s.Logprobs, judge.BatchKeys(req), req.BatchIDs, req.Scale)
			return
		}
		ex, err := judge.ReadExpected(s.Logprobs, req.Scale)
		if err != nil {
			s.Err = truncated(err.(*judge.Error))
			return
		}
		s.Score, s.HasScore, s.ProbMass, s.Approx = ex.Score, true, ex.Mass, ex.Approx
		return
	}
	if len(req.BatchIDs) > 0 {
		s.Items = judge.ParseBatch(s.Raw, judge.BatchKeys(req), req.BatchIDs, req.Scale)
		return
	}
	v, err := judge.ParseScore(s.Raw, req.Scale)
	if err != nil {
		s.Err = truncated(err.(*judge.Error))
		return
	}
	s.Score, s.HasScore = float64(v), true
}

// readRubric parses a rubric reply (docs/rubrics.md). SAJA: the JSON
// object's ratings, one item per criterion (missing cells carry their
// error; a reply with no object of ratings fails as a whole), integers in
// either mode. G-Eval: in expected mode the weighted mean over the valid
// ratings at the rating's token (ReadRatingLogprobs), else the sampled
// rating (ParseRating), leading or after the criterion's label.
func readRubric(mode judge.Mode, s *judge.Sample, req banks.Request, truncated func(*judge.Error) *judge.Error) {
	rc := req.Rubric
	if rc.Kind == banks.RubricSAJA {
		items, err := judge.ParseSAJA(s.Raw, rc.Criteria)
		s.Items = items
		if err != nil {
			s.Err = truncated(err.(*judge.Error))
		}
		return
	}
	cr := rc.Criteria[0]
	if mode == judge.ModeExpected {
		if len(s.Logprobs) == 0 {
			s.Err = &judge.Error{Kind: judge.KindNoLogprobs, Msg: "the server returned no logprobs; it was not scored another way"}
			return
		}
		ex, err := judge.ReadRatingLogprobs(s.Logprobs, cr.Label, cr.Scale)
		if err != nil {
			s.Err = truncated(err.(*judge.Error))
			return
		}
		s.Score, s.HasScore, s.ProbMass, s.Approx = ex.Score, true, ex.Mass, ex.Approx
		return
	}
	v, err := judge.ParseRating(s.Raw, cr.Label, cr.Scale)
	if err != nil {
		s.Err = truncated(err.(*judge.Error))
		return
	}
	s.Score, s.HasScore = v, true
}

func expectedItems(toks []judge.TokenLogprob, keys, ids []string, sc banks.Scale) []judge.Item {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.Token)
	}
	locs := judge.LocateBatch(b.String(), keys)
	items := make([]judge.Item, len(ids))
	for i, l := range locs {
		items[i].ID = ids[i]
		if !l.Found {
			items[i].Err = &judge.Error{Kind: judge.KindUnparseable, Msg: fmt.Sprintf("no score for candidate %q", ids[i])}
			continue
		}
		ex, err := judge.ExpectedAt(toks, l.Span.Start, sc)
		if err != nil {
			items[i].Err = err.(*judge.Error)
			continue
		}
		items[i].Score, items[i].ProbMass, items[i].HasScore = ex.Score, ex.Mass, true
	}
	return items
}

func convertLogprobs(lp *goopenai.LogProbs) []judge.TokenLogprob {
	out := make([]judge.TokenLogprob, len(lp.Content))
	for i, t := range lp.Content {
		out[i] = judge.TokenLogprob{Token: t.Token, Logprob: t.LogProb}
		if len(t.TopLogProbs) > 0 {
			out[i].Top = make([]judge.TopLogprob, len(t.TopLogProbs))
			for j, a := range t.TopLogProbs {
				out[i].Top[j] = judge.TopLogprob{Token: a.Token, Logprob: a.LogProb}
			}
		}
	}
	return out
}

// reasoningModel reports whether the model takes max_completion_tokens
// (and go-openai refuses max_tokens for it).
func reasoningModel(m string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// chatRequest builds the go-openai request for one repeat.
func (c *Client) chatRequest(req banks.Request, repeat int) (goopenai.ChatCompletionRequest, *callInfo) {
	return chatRequest(c.cfg, req, repeat, c.schemaOff.Load())
}

// RequestBody is the JSON body a Client for cfg sends for repeat `repeat`
// of req (seed + repeat when a seed is set) on its first try, byte for
// byte: under the auto response format the JSON schema is sent, as
// nothing has refused it yet. It never holds the API key (which travels
// in a header). A batch line's body (judge/engine's ExportBatch for rubric
// studies) is this.
func RequestBody(cfg judge.Config, req banks.Request, repeat int) ([]byte, error) {
	if err := checkRequest(req); err != nil {
		return nil, err
	}
	cr, ci := chatRequest(cfg, req, repeat, false)
	b, err := json.Marshal(cr)
	if err != nil {
		return nil, err
	}
	if len(ci.patch) > 0 {
		b = patchJSON(b, ci.patch)
	}
	return b, nil
}

// chatRequest builds the go-openai request for one repeat under cfg;
// schemaOff drops the auto response format's schema (the server refused it).
func chatRequest(cfg judge.Config, req banks.Request, repeat int, schemaOff bool) (goopenai.ChatCompletionRequest, *callInfo) {
	ci := &callInfo{}
	cr := goopenai.ChatCompletionRequest{Model: cfg.Model}
	if len(req.Messages) > 0 {
		cr.Messages = make([]goopenai.ChatCompletionMessage, 0, len(req.Messages))
	}
	for _, m := range req.Messages {
		cr.Messages = append(cr.Messages, goopenai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	if cfg.MaxTokens > 0 {
		if reasoningModel(cfg.Model) {
			cr.MaxCompletionTokens = cfg.MaxTokens
		} else {
			cr.MaxTokens = cfg.MaxTokens
		}
	}
	// go-openai drops zero floats (omitempty); an explicit 0 is patched
	// into the body by the transport so that "temperature 0" is exact.
	if t := cfg.Temperature; t != nil {
		cr.Temperature = float32(*t)
		if *t == 0 {
			ci.patch = map[string]any{"temperature": 0}
		}
	}
	if p := cfg.TopP; p != nil {
		cr.TopP = float32(*p)
	}
	if cfg.Seed != nil {
		s := *cfg.Seed + repeat
		cr.Seed = &s
	}
	if cfg.Mode == judge.ModeExpected {
		cr.LogProbs = true
		cr.TopLogProbs = cfg.TopLogprobs
	}
	switch {
	case req.Rubric != nil && req.Rubric.Kind == banks.RubricGEval:
		// A G-Eval reply is free text after a form line: no response_format.
	case cfg.ResponseFormat == judge.FormatJSONSchema:
		cr.ResponseFormat = schemaFormat(req)
	case cfg.ResponseFormat == judge.FormatAuto:
		if !schemaOff {
			cr.ResponseFormat = schemaFormat(req)
		}
	case cfg.ResponseFormat == judge.FormatJSONObject:
		cr.ResponseFormat = &goopenai.ChatCompletionResponseFormat{Type: goopenai.ChatCompletionResponseFormatTypeJSONObject}
	}
	return cr, ci
}

// schemaFormat is the json_schema response format: {"score": int in
// [Min, Max]} for one candidate, {"scores": {LABEL: int, …}} for a batch,
// the rubric's schema for a SAJA request.
func schemaFormat(req banks.Request) *goopenai.ChatCompletionResponseFormat {
	if raw := req.Rubric.Schema(); raw != nil {
		// A SAJA request: one integer member per criterion (docs/rubrics.md).
		return &goopenai.ChatCompletionResponseFormat{
			Type:       goopenai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{Name: banks.SchemaName, Schema: raw, Strict: true},
		}
	}
	intSchema := map[string]any{"type": "integer", "minimum": req.Scale.Min, "maximum": req.Scale.Max}
	var schema map[string]any
	if len(req.BatchIDs) == 0 {
		schema = map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"score": intSchema},
			"required":             []string{"score"},
			"additionalProperties": false,
		}
	} else {
		keys := judge.BatchKeys(req)
		props := map[string]any{}
		for _, k := range keys {
			props[k] = intSchema
		}
		schema = map[string]any{
			"type": "object",
			"properties": map[string]any{"scores": map[string]any{
				"type": "object", "properties": props, "required": keys, "additionalProperties": false,
			}},
			"required":             []string{"scores"},
			"additionalProperties": false,
		}
	}
	raw, _ := json.Marshal(schema) // maps of strings and ints always marshal
	return &goopenai.ChatCompletionResponseFormat{
		Type:       goopenai.ChatCompletionResponseFormatTypeJSONSchema,
		JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{Name: "score", Schema: json.RawMessage(raw), Strict: true},
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
