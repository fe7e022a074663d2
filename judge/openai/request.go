package openai

import (
	"encoding/json"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

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
