package openai

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/prism-eval/prism/judge"
)

// The envelope's field lists are go-openai's: a field added by a newer
// go-openai would otherwise be decoded without its duplicates refused.
func TestEnvelopeFieldsAreGoOpenAIs(t *testing.T) {
	names := func(v any) []string {
		var out []string
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case name == "-" && f.Name == "MultiContent":
				// ChatCompletionMessage.UnmarshalJSON decodes into a copy of
				// the struct whose MultiContent has no tag.
				name = f.Name
			case name == "-":
				continue
			case name == "":
				name = f.Name
			}
			out = append(out, name)
		}
		return out
	}
	for _, c := range []struct {
		typ  any
		list []string
	}{
		{goopenai.ChatCompletionResponse{}, responseFields},
		{goopenai.ChatCompletionChoice{}, choiceFields},
		{goopenai.ChatCompletionMessage{}, messageFields},
		{goopenai.Usage{}, usageFields},
		{goopenai.PromptTokensDetails{}, promptDetailFields},
		{goopenai.CompletionTokensDetails{}, completionDetailFields},
		{goopenai.LogProbs{}, logProbsFields},
		{goopenai.LogProb{}, logProbFields},
	} {
		got := names(c.typ)
		// httpHeader is embedded without a tag and unexported: not a field
		// encoding/json decodes.
		got = slices.DeleteFunc(got, func(n string) bool { return n == "httpHeader" })
		if !slices.Equal(got, c.list) {
			t.Errorf("%T: go-openai's JSON fields %q, the envelope's %q", c.typ, got, c.list)
		}
	}
}

// TestServerReplyShapes: replies as the servers prism talks to send them
// (shapes copied from OpenAI, vLLM, Ollama and llama.cpp), with fields
// go-openai does not know, are read; in expected mode from their logprobs.
func TestServerReplyShapes(t *testing.T) {
	cases := []struct {
		name, reply string
		expected    bool
		score       float64
	}{
		{"openai", `{"id":"chatcmpl-AZr8XyTQ0pX3a6","object":"chat.completion","created":1733012345,"model":"gpt-4o-mini-2024-07-18",` +
			`"choices":[{"index":0,"message":{"role":"assistant","content":"{\"score\":4}","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],` +
			`"usage":{"prompt_tokens":312,"completion_tokens":6,"total_tokens":318,"prompt_tokens_details":{"cached_tokens":256,"audio_tokens":0},` +
			`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},` +
			`"service_tier":"default","system_fingerprint":"fp_0aa8d3e20b"}`, false, 4},
		{"openai logprobs", `{"id":"chatcmpl-x","object":"chat.completion","created":1733012345,"model":"gpt-4o-mini",` +
			`"choices":[{"index":0,"message":{"role":"assistant","content":"{\"score\":7}","refusal":null},"logprobs":{"content":[` +
			`{"token":"{\"score\":","logprob":-1.9e-07,"bytes":[123,34],"top_logprobs":[{"token":"{\"score\":","logprob":-1.9e-07,"bytes":[123,34]}]},` +
			`{"token":"7","logprob":-0.6931472,"bytes":[55],"top_logprobs":[{"token":"7","logprob":-0.6931472,"bytes":[55]},{"token":"8","logprob":-0.6931472,"bytes":[56]},{"token":"<|end|>","logprob":-20,"bytes":null}]},` +
			`{"token":"}","logprob":0.0,"bytes":[125],"top_logprobs":[]}],"refusal":null},"finish_reason":"stop"}],` +
			`"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15},"system_fingerprint":"fp_1"}`, true, 7.5},
		{"vllm", `{"id":"chatcmpl-8f2c1a","object":"chat.completion","created":1733012345,"model":"meta-llama/Llama-3.1-8B-Instruct",` +
			`"choices":[{"index":0,"message":{"role":"assistant","reasoning_content":null,"content":"{\"score\": 7}","tool_calls":[]},` +
			`"logprobs":null,"finish_reason":"stop","stop_reason":null}],` +
			`"usage":{"prompt_tokens":95,"total_tokens":97,"completion_tokens":2,"prompt_tokens_details":null},"prompt_logprobs":null,"kv_transfer_params":null}`, false, 7},
		{"ollama", `{"id":"chatcmpl-527","object":"chat.completion","created":1733012345,"model":"llama3.2","system_fingerprint":"fp_ollama",` +
			`"choices":[{"index":0,"message":{"role":"assistant","content":"{\"score\": 5}"},"finish_reason":"stop"}],` +
			`"usage":{"prompt_tokens":201,"completion_tokens":14,"total_tokens":215}}`, false, 5},
		{"llama.cpp", `{"choices":[{"finish_reason":"stop","index":0,"message":{"role":"assistant","content":"{\"score\": 2}"}}],` +
			`"created":1733012345,"model":"gpt-3.5-turbo","system_fingerprint":"b4521-6171c9d2","object":"chat.completion",` +
			`"usage":{"completion_tokens":8,"prompt_tokens":180,"total_tokens":188},"id":"chatcmpl-q9X",` +
			`"timings":{"prompt_n":180,"prompt_ms":41.2,"predicted_n":8,"predicted_ms":96.7}}`, false, 2},
	}
	for _, c := range cases {
		mod := func(*judge.Config) {}
		if c.expected {
			mod = expectedMode
		}
		res, err, _ := serveOnce(t, c.reply, mod)
		if err != nil || !res.HasScore || res.Score != c.score {
			t.Errorf("%s: score %v (%v), %v; want %v", c.name, res.Score, res.HasScore, err, c.score)
		}
	}
}

// TestAmbiguousNotRetried: an ambiguous reply fails the call at once as
// KindAmbiguous, however many retries are allowed (asking again may get
// another answer, not the meaning of this one), and says its status.
func TestAmbiguousNotRetried(t *testing.T) {
	body := envelope(choiceJSON(`"content":"{\"score\": 3}","content":"{\"score\": 9}"`, ""), plainUsage)
	f := newFake(t, status(200, body), reply(`{"score": 5}`))
	rec := &recorder{}
	c := newClient(t, f.URL, rec, nil)
	res, err := c.Score(context.Background(), request())
	if judge.KindOf(err) != judge.KindAmbiguous || res.HasScore || f.calls() != 1 || len(rec.sleeps) != 0 {
		t.Fatalf("%+v %v after %d calls, waits %v; want one ambiguous call", res, err, f.calls(), rec.sleeps)
	}
	if e := res.Samples[0].Err; e.Status != 200 || e.Attempts != 1 {
		t.Errorf("error %+v: want status 200, 1 attempt", e)
	}
}
