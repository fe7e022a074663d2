package engine

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/openai"
)

// Reading the result lines of a batch (OpenAI's and vLLM's output files,
// Anthropic's results) into outcomes: ParseBatchOutput, parseBatchLines.

// batchOutput is one line of a batch output or error file. OpenAI writes
// {"id", "custom_id", "response": {"status_code", "request_id", "body":
// <chat completion>}, "error": null | {"code", "message"}}; vLLM's
// run-batch writes the same BatchRequestOutput shape, with "error" a
// string and "response.body" null on failure. A response that is itself a
// chat completion (no "body") is accepted too.
type batchOutput struct {
	CustomID string          `json:"custom_id"`
	Response json.RawMessage `json:"response"`
	Error    json.RawMessage `json:"error"`

	Result        json.RawMessage `json:"result"`         // an Anthropic result
	ID            json.RawMessage `json:"id"`             // a Ray row's id (OpenAI's batch_req id otherwise)
	GeneratedText *string         `json:"generated_text"` // a Ray row's reply
}

type batchResponse struct {
	StatusCode *int            `json:"status_code"`
	Body       json.RawMessage `json:"body"`
	Choices    json.RawMessage `json:"choices"`
}

type chatCompletion struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal string  `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
		Logprobs     *struct {
			Content []wireLogprob `json:"content"`
		} `json:"logprobs"`
	} `json:"choices"`
	Usage struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// BatchOutcome is what one output line says about its request.
type BatchOutcome struct {
	CustomID string
	Line     int
	Raw      string
	Score    float64 // NaN when none
	ErrKind  string  // "" for an answer
	Err      string
	Logprobs []judge.TokenLogprob
	// Refusal and FinishReason are the reply's, as the server gave them.
	Refusal, FinishReason string

	PromptTokens, CachedTokens, CompletionTokens int
	// UsageNote says which reported token counts were implausible and
	// replaced (checkUsage); "" when the file's counts stand.
	UsageNote string
}

// ParseBatchOutput reads a batch output JSONL and scores each reply on sc
// in mode. Malformed lines are errors naming file, line and field; a
// request that failed (HTTP error, non-HTTP error, no score) is an outcome
// with ErrKind set, not an error. Blank lines are skipped. Anthropic
// results need the workspace's short ids (ImportBatch) and are refused.
func ParseBatchOutput(r io.Reader, file string, scale func(customID string) (banks.Scale, judge.Mode, error)) ([]BatchOutcome, error) {
	return parseBatchLines(r, file, nil, func(oc *BatchOutcome) error {
		sc, mode, err := scale(oc.CustomID)
		if err != nil {
			return err
		}
		scoreOutcome(oc, oc.Refusal, oc.FinishReason, sc, mode)
		return nil
	})
}

// parseBatchLines reads a batch output JSONL as ParseBatchOutput does and
// calls score on each reply (not on failed lines); an error of score is
// the line's custom_id error. A line is OpenAI's or vLLM's shape, an
// Anthropic result (its short custom_id read back by short), or a Ray
// output row. A rubric call's reply (isRubricID) may have no content when
// the model refused.
func parseBatchLines(r io.Reader, file string, short func(string) (string, error), score func(oc *BatchOutcome) error) ([]BatchOutcome, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	var out []BatchOutcome
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		at := func(field, format string, args ...any) error {
			return fmt.Errorf("%s:%d:1: %s: %s", file, line, field, fmt.Sprintf(format, args...))
		}
		var o batchOutput
		if err := json.Unmarshal(b, &o); err != nil {
			return nil, at("line", "not a JSON object: %v", err)
		}
		var oc BatchOutcome
		var reply bool
		var err error
		switch {
		case isPresent(o.Result):
			oc, reply, err = readAnthropicLine(o, at, short)
		case o.CustomID == "" && (o.GeneratedText != nil || isPresent(o.ID)):
			oc, reply, err = readRayLine(b, at)
		default:
			oc, reply, err = readOpenAILine(o, at)
		}
		if err != nil {
			return nil, err
		}
		oc.Line = line
		if reply {
			oc.checkUsage()
			if err := score(&oc); err != nil {
				return nil, at("custom_id", "%v", err)
			}
		}
		out = append(out, oc)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d:1: %w", file, line+1, err)
	}
	return out, nil
}

// readOpenAILine reads a line of OpenAI's or vLLM's output shape: reply
// is false for a failed request (ErrKind set).
func readOpenAILine(o batchOutput, at func(field, format string, args ...any) error) (BatchOutcome, bool, error) {
	if o.CustomID == "" {
		return BatchOutcome{}, false, at("custom_id", "missing")
	}
	oc := BatchOutcome{CustomID: o.CustomID, Score: math.NaN()}
	if isPresent(o.Error) {
		oc.ErrKind, oc.Err = string(judge.KindServer), "batch error: "+errorText(o.Error)
		// OpenAI's error file lists the requests an expired or
		// cancelled batch never ran under these codes.
		switch errorCode(o.Error) {
		case "batch_expired":
			oc.ErrKind = KindExpired
		case "batch_cancelled":
			oc.ErrKind = KindCanceled
		}
		return oc, false, nil
	}
	if !isPresent(o.Response) {
		return oc, false, at("response", "missing (and no error)")
	}
	var br batchResponse
	if err := json.Unmarshal(o.Response, &br); err != nil {
		return oc, false, at("response", "not an object: %v", err)
	}
	body := br.Body
	if !isPresent(body) && isPresent(br.Choices) {
		body = o.Response // a flat response: the chat completion itself
	}
	status := 200
	if br.StatusCode != nil {
		status = *br.StatusCode
	}
	if status != 200 || !isPresent(body) {
		oc.ErrKind, oc.Err = string(judge.StatusKind(status)), fmt.Sprintf("HTTP %d: %s", status, errorText(body))
		return oc, false, nil
	}
	var cc chatCompletion
	if err := json.Unmarshal(body, &cc); err != nil {
		return oc, false, at("response.body", "not a chat completion: %v", err)
	}
	if isPresent(cc.Error) {
		oc.ErrKind, oc.Err = string(judge.KindServer), errorText(cc.Error)
		return oc, false, nil
	}
	// A key twice or several choices: refused as the live client
	// refuses them, not read one way (openai.Ambiguous).
	if why := openai.Ambiguous(body); why != "" || len(cc.Choices) > 1 {
		if why == "" {
			why = fmt.Sprintf("%d choices (prism asks for one)", len(cc.Choices))
		}
		oc.ErrKind, oc.Err = string(judge.KindAmbiguous), "the answer is ambiguous: "+why
		return oc, false, nil
	}
	if len(cc.Choices) == 0 || cc.Choices[0].Message.Content == nil && !(isRubricID(o.CustomID) &&
		(cc.Choices[0].Message.Refusal != "" || cc.Choices[0].FinishReason == "content_filter")) {
		return oc, false, at("response.body.choices", "no message content")
	}
	oc.PromptTokens, oc.CompletionTokens = cc.Usage.PromptTokens, cc.Usage.CompletionTokens
	if d := cc.Usage.PromptTokensDetails; d != nil {
		oc.CachedTokens = d.CachedTokens
	}
	ch := cc.Choices[0]
	if ch.Message.Content != nil {
		oc.Raw = *ch.Message.Content
	}
	oc.Refusal, oc.FinishReason = ch.Message.Refusal, ch.FinishReason
	if lp := ch.Logprobs; lp != nil {
		oc.Logprobs = tokenLogprobs(lp.Content)
	}
	return oc, true, nil
}

// wireLogprob is a token's logprob entry as OpenAI (and prism's Ray
// recipe) write it.
type wireLogprob struct {
	Token       string  `json:"token"`
	Logprob     float64 `json:"logprob"`
	TopLogprobs []struct {
		Token   string  `json:"token"`
		Logprob float64 `json:"logprob"`
	} `json:"top_logprobs"`
}

func tokenLogprobs(ws []wireLogprob) []judge.TokenLogprob {
	var out []judge.TokenLogprob
	for _, t := range ws {
		tl := judge.TokenLogprob{Token: t.Token, Logprob: t.Logprob}
		for _, a := range t.TopLogprobs {
			tl.Top = append(tl.Top, judge.TopLogprob{Token: a.Token, Logprob: a.Logprob})
		}
		out = append(out, tl)
	}
	return out
}

// scoreOutcome reads the score as the judge would: the expected score over
// top_logprobs in expected mode, else the integer in the reply.
func scoreOutcome(oc *BatchOutcome, refusal, finish string, sc banks.Scale, mode judge.Mode) {
	if refusal != "" || finish == "content_filter" {
		oc.ErrKind, oc.Err = string(judge.KindRefusal), "the model declined to score"
		return
	}
	if mode == judge.ModeExpected {
		if len(oc.Logprobs) == 0 {
			oc.ErrKind, oc.Err = string(judge.KindNoLogprobs), "expected mode, but the reply has no logprobs"
			return
		}
		e, err := judge.ReadExpected(oc.Logprobs, sc)
		if err != nil {
			oc.ErrKind, oc.Err = string(judge.KindOf(err)), err.Error()
			if oc.ErrKind == "" {
				oc.ErrKind = string(judge.KindUnparseable)
			}
			return
		}
		oc.Score = e.Score
		return
	}
	v, err := judge.ParseScore(oc.Raw, sc)
	if err != nil {
		oc.ErrKind, oc.Err = string(judge.KindOf(err)), err.Error()
		if oc.ErrKind == "" {
			oc.ErrKind = string(judge.KindUnparseable)
		}
		return
	}
	oc.Score = float64(v)
}

func isPresent(m json.RawMessage) bool {
	s := strings.TrimSpace(string(m))
	return s != "" && s != "null"
}

// errorText is the message of an error value: a string, an object with
// "message" (OpenAI's {"code","message"}, or {"error": {...}}), else its JSON.
func errorText(m json.RawMessage) string {
	var s string
	if json.Unmarshal(m, &s) == nil {
		return s
	}
	var o struct {
		Message string          `json:"message"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(m, &o) == nil {
		if o.Message != "" {
			return o.Message
		}
		if isPresent(o.Error) {
			return errorText(o.Error)
		}
	}
	if len(m) > 200 {
		return string(m[:200]) + "…"
	}
	return string(m)
}

// errorCode is the "code" of an error object, or "".
func errorCode(m json.RawMessage) string {
	var o struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(m, &o)
	return o.Code
}

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
