package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// A reply whose envelope says two things is refused rather than read
// one way: encoding/json keeps the last of two "content" members, and
// the first of two choices would be read, either maybe the wrong score.
// Ambiguous names a key given twice in a chat completion's JSON; the
// readers count the choices themselves (a decoded reply has them). The
// client and a batch import fail such a reply with judge.KindAmbiguous
// (docs/judge.md).
//
// Only the fields go-openai decodes are checked, in the objects it
// decodes (the field lists below: the reply, each choice, its message
// and logprobs, each logprob and top logprob, the usage and its details):
// two keys that encoding/json would decode into the same field — equal,
// or equal but for case (it matches keys case-insensitively) — are
// ambiguous. Other keys, and other objects (a server's own extensions),
// are not read into anything and not checked. The retry layer refuses
// an ambiguous 2xx reply before go-openai decodes it (replyKind).

// The JSON names of the fields of each type go-openai decodes a chat
// completion into (goopenai.ChatCompletionResponse and what it holds),
// all of them; TestEnvelopeFieldsAreGoOpenAIs keeps them so.
var (
	responseFields = []string{"id", "object", "created", "model", "choices", "usage",
		"system_fingerprint", "prompt_filter_results", "service_tier"}
	choiceFields = []string{"index", "message", "finish_reason", "logprobs", "content_filter_results"}
	// ChatCompletionMessage.UnmarshalJSON's first struct: MultiContent has
	// no tag.
	messageFields = []string{"role", "content", "refusal", "MultiContent", "name",
		"reasoning_content", "function_call", "tool_calls", "tool_call_id"}
	usageFields = []string{"prompt_tokens", "completion_tokens", "total_tokens",
		"prompt_tokens_details", "completion_tokens_details"}
	promptDetailFields     = []string{"audio_tokens", "cached_tokens"}
	completionDetailFields = []string{"audio_tokens", "reasoning_tokens",
		"accepted_prediction_tokens", "rejected_prediction_tokens"}
	logProbsFields = []string{"content"}
	logProbFields  = []string{"token", "logprob", "bytes", "top_logprobs"}
)

// envShape maps the folded JSON names of an object's fields to their
// values' shapes: nil for a value not checked, an envShape (maybe empty)
// for an object (or an array of objects) whose fields are checked.
type envShape map[string]envShape

// shapeOf is the shape of an object with fields, their values unchecked
// but for subs.
func shapeOf(fields []string, subs envShape) envShape {
	s := envShape{}
	for _, f := range fields {
		s[fold(f)] = subs[f]
	}
	return s
}

var replyShape = shapeOf(responseFields, envShape{
	"choices": shapeOf(choiceFields, envShape{
		"message": shapeOf(messageFields, nil),
		"logprobs": shapeOf(logProbsFields, envShape{
			"content": shapeOf(logProbFields, envShape{"top_logprobs": shapeOf(logProbFields[:3], nil)}),
		}),
	}),
	"usage": shapeOf(usageFields, envShape{
		"prompt_tokens_details":     shapeOf(promptDetailFields, nil),
		"completion_tokens_details": shapeOf(completionDetailFields, nil),
	}),
})

// Ambiguous reports why the chat completion data is ambiguous: a key
// twice in one of the objects go-openai decodes ("choices[0].message:
// key \"content\" twice"). "" when it is not, or when data is not JSON
// (its decoder reports that).
func Ambiguous(data []byte) string {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	why, _ := envValue(d, replyShape, "")
	return why
}

// envValue reads one value at path ("" for the reply itself, else e.g.
// "choices[0].message"); shape is nil for a value not checked.
func envValue(d *json.Decoder, shape envShape, path string) (string, error) {
	tok, err := d.Token()
	if err != nil {
		return "", err
	}
	switch tok {
	case json.Delim('{'):
		return envObject(d, shape, path)
	case json.Delim('['):
		n := 0
		for d.More() {
			if why, err := envValue(d, shape, fmt.Sprintf("%s[%d]", path, n)); why != "" || err != nil {
				return why, err
			}
			n++
		}
		if _, err := d.Token(); err != nil {
			return "", err
		}
	}
	return "", nil
}

// envObject reads the members of an object whose '{' was read.
func envObject(d *json.Decoder, shape envShape, path string) (string, error) {
	var seen map[string]string
	if shape != nil {
		seen = map[string]string{}
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return "", err
		}
		key, _ := tok.(string)
		f := fold(key)
		sub, field := shape[f]
		if field {
			if prev, dup := seen[f]; dup {
				return dupMsg(path, prev, key), nil
			}
			seen[f] = key
		}
		sp := key
		if path != "" {
			sp = path + "." + key
		}
		if why, err := envValue(d, sub, sp); why != "" || err != nil {
			return why, err
		}
	}
	_, err := d.Token()
	return "", err
}

func dupMsg(path, prev, key string) string {
	where := ""
	if path != "" {
		where = path + ": "
	}
	if prev == key {
		return fmt.Sprintf("%skey %q twice", where, key)
	}
	return fmt.Sprintf("%skeys %q and %q (one field to encoding/json)", where, prev, key)
}

// fold is a key as encoding/json compares it to a field's name: case
// aside (U+212A KELVIN SIGN is k, U+017F LONG S is s, as there).
func fold(k string) string { return strings.ToLower(strings.ToUpper(k)) }
