package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/prism-eval/prism/judge"
)

// Failure kinds of an Anthropic batch result that has no answer: the
// batch ended before the request ran (expired, after 24 hours) or was
// canceled. Stored as failures, so the requests stay pending.
const (
	KindExpired  = "expired"
	KindCanceled = "canceled"
)

// anthropicResult is the "result" of a line of Anthropic's Message Batches
// results JSONL: {"custom_id", "result": {"type": "succeeded", "message":
// <Message>} | {"type": "errored", "error": <error response>} |
// {"type": "canceled"} | {"type": "expired"}}.
type anthropicResult struct {
	Type    string          `json:"type"`
	Message json.RawMessage `json:"message"`
	Error   json.RawMessage `json:"error"`
}

// AnthropicMessage is what prism reads of a Messages API reply.
type AnthropicMessage struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StopReason string `json:"stop_reason"`
	Usage      struct {
		InputTokens          int `json:"input_tokens"`
		OutputTokens         int `json:"output_tokens"`
		CacheReadInputTokens int `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// Text is the reply's text blocks, joined.
func (m AnthropicMessage) Text() string {
	var sb strings.Builder
	for _, c := range m.Content {
		if c.Type == "text" {
			sb.WriteString(c.Text)
		}
	}
	return sb.String()
}

// FinishReason is the reply's stop reason in OpenAI's words, so the
// readers that know "length" and "content_filter" read it the same.
func (m AnthropicMessage) FinishReason() string {
	switch m.StopReason {
	case "max_tokens":
		return "length"
	case "refusal":
		return "content_filter"
	case "end_turn", "stop_sequence":
		return "stop"
	}
	return m.StopReason
}

// readAnthropicLine reads a line of Anthropic results: its short
// custom_id is read back by short (the workspace's batch_ids); an id
// short does not know is an error, like an unknown custom_id. succeeded
// is a reply; errored, canceled and expired are failures.
func readAnthropicLine(o batchOutput, at func(field, format string, args ...any) error, short func(string) (string, error)) (BatchOutcome, bool, error) {
	if o.CustomID == "" {
		return BatchOutcome{}, false, at("custom_id", "missing")
	}
	if short == nil {
		return BatchOutcome{}, false, at("custom_id", "an Anthropic result's id is read back through the workspace its export recorded it in (prism batch import)")
	}
	id, err := short(o.CustomID)
	if err != nil {
		return BatchOutcome{}, false, at("custom_id", "%v", err)
	}
	oc := BatchOutcome{CustomID: id, Score: math.NaN()}
	var res anthropicResult
	if err := json.Unmarshal(o.Result, &res); err != nil {
		return oc, false, at("result", "not an object: %v", err)
	}
	switch res.Type {
	case "succeeded":
	case "errored":
		oc.ErrKind, oc.Err = anthropicErrorKind(res.Error), "batch error: "+errorText(res.Error)
		return oc, false, nil
	case "expired":
		oc.ErrKind, oc.Err = KindExpired, "the batch expired before this request ran"
		return oc, false, nil
	case "canceled":
		oc.ErrKind, oc.Err = KindCanceled, "the batch was canceled before this request ran"
		return oc, false, nil
	default:
		return oc, false, at("result.type", "%q is not succeeded, errored, canceled or expired", res.Type)
	}
	if !isPresent(res.Message) {
		return oc, false, at("result.message", "missing")
	}
	var m AnthropicMessage
	if err := json.Unmarshal(res.Message, &m); err != nil {
		return oc, false, at("result.message", "not a message: %v", err)
	}
	oc.Raw, oc.FinishReason = m.Text(), m.FinishReason()
	if m.StopReason == "refusal" {
		oc.Refusal = "the model refused (stop_reason refusal)"
	}
	oc.PromptTokens = m.Usage.InputTokens + m.Usage.CacheReadInputTokens
	oc.CachedTokens, oc.CompletionTokens = m.Usage.CacheReadInputTokens, m.Usage.OutputTokens
	return oc, true, nil
}

// anthropicErrorKind is the failure kind of an errored result's error
// ({"type": "error", "error": {"type": "invalid_request_error", …}}).
func anthropicErrorKind(m json.RawMessage) string {
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type string `json:"type"`
		} `json:"error"`
	}
	_ = json.Unmarshal(m, &e)
	t := e.Error.Type
	if t == "" {
		t = e.Type
	}
	switch t {
	case "invalid_request_error":
		return string(judge.KindBadRequest)
	case "authentication_error", "permission_error":
		return string(judge.KindAuth)
	case "not_found_error":
		return string(judge.KindNotFound)
	case "rate_limit_error":
		return string(judge.KindRateLimit)
	case "request_too_large":
		return string(judge.KindBadRequest)
	}
	return string(judge.KindServer)
}

// RayOutput is a row of a Ray Data LLM run as contrib/ray/run.py writes
// it: the row's id, the generated text and token counts vLLM reports,
// the logprobs in OpenAI's shape when asked for, or an error.
type RayOutput struct {
	ID                 string        `json:"id"`
	GeneratedText      *string       `json:"generated_text"`
	NumInputTokens     int           `json:"num_input_tokens"`
	NumGeneratedTokens int           `json:"num_generated_tokens"`
	FinishReason       string        `json:"finish_reason"`
	Logprobs           []wireLogprob `json:"logprobs"`
	Error              string        `json:"error"`
}

// readRayLine reads a Ray output row.
func readRayLine(b []byte, at func(field, format string, args ...any) error) (BatchOutcome, bool, error) {
	var r RayOutput
	if err := json.Unmarshal(b, &r); err != nil {
		return BatchOutcome{}, false, at("line", "not a Ray output row: %v", err)
	}
	if r.ID == "" {
		return BatchOutcome{}, false, at("id", "missing")
	}
	oc := BatchOutcome{CustomID: r.ID, Score: math.NaN()}
	if r.Error != "" {
		oc.ErrKind, oc.Err = string(judge.KindServer), "batch error: "+r.Error
		return oc, false, nil
	}
	if r.GeneratedText == nil {
		return oc, false, at("generated_text", "missing (and no error)")
	}
	oc.Raw, oc.FinishReason = *r.GeneratedText, r.FinishReason
	oc.PromptTokens, oc.CompletionTokens = r.NumInputTokens, r.NumGeneratedTokens
	oc.Logprobs = tokenLogprobs(r.Logprobs)
	return oc, true, nil
}

// shortIDs reads Anthropic's short ids back through the workspace.
func shortIDs(lookup func(string) (string, bool, error)) func(string) (string, error) {
	return func(short string) (string, error) {
		id, ok, err := lookup(short)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", fmt.Errorf("%q matches no exported request in this workspace (export with prism batch export --format anthropic first)", short)
		}
		return id, nil
	}
}
