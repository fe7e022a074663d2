package openai

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
)

// replyCases are chat-completion replies as servers send them (shapes
// copied from the OpenAI, vLLM, Ollama and llama.cpp servers' replies),
// and odd ones; fast says whether fastReply must handle them.
var replyCases = []struct {
	name  string
	fast  bool
	reply string
}{
	{"openaitest", true, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"{\"score\": 7}"},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":100,"completion_tokens":6,"total_tokens":106}}`},
	{"openai", true, `{
  "id": "chatcmpl-AZr8XyTQ0pX3a6",
  "object": "chat.completion",
  "created": 1733012345,
  "model": "gpt-4o-mini-2024-07-18",
  "choices": [
    {
      "index": 0,
      "message": {
        "role": "assistant",
        "content": "{\"score\":4}",
        "refusal": null,
        "annotations": []
      },
      "logprobs": null,
      "finish_reason": "stop"
    }
  ],
  "usage": {
    "prompt_tokens": 312,
    "completion_tokens": 6,
    "total_tokens": 318,
    "prompt_tokens_details": {"cached_tokens": 256, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
  },
  "service_tier": "default",
  "system_fingerprint": "fp_0aa8d3e20b"
}
`},
	{"openai logprobs", true, `{"id":"chatcmpl-x","object":"chat.completion","created":1733012345,"model":"gpt-4o-mini",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"{\"score\":7}","refusal":null},` +
		`"logprobs":{"content":[` +
		`{"token":"{\"","logprob":-1.9361265e-07,"bytes":[123,34],"top_logprobs":[{"token":"{\"","logprob":-1.9361265e-07,"bytes":[123,34]},{"token":"{","logprob":-15.500000193,"bytes":[123]}]},` +
		`{"token":"7","logprob":-0.5108256,"bytes":[55],"top_logprobs":[{"token":"7","logprob":-0.5108256,"bytes":[55]},{"token":"8","logprob":-1.2039728,"bytes":[56]},{"token":"6","logprob":-2.3025851,"bytes":[54]},{"token":"é","logprob":-9.0,"bytes":[195,169]},{"token":"<|end|>","logprob":-20,"bytes":null}]},` +
		`{"token":"}","logprob":0.0,"bytes":[125],"top_logprobs":[]}` +
		`],"refusal":null},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15},"system_fingerprint":"fp_1"}`},
	{"vllm", true, `{"id":"chatcmpl-8f2c1a","object":"chat.completion","created":1733012345,"model":"meta-llama/Llama-3.1-8B-Instruct",` +
		`"choices":[{"index":0,"message":{"role":"assistant","reasoning_content":null,"content":"7","tool_calls":[]},` +
		`"logprobs":null,"finish_reason":"stop","stop_reason":null}],` +
		`"usage":{"prompt_tokens":95,"total_tokens":97,"completion_tokens":2,"prompt_tokens_details":null},` +
		`"prompt_logprobs":null,"kv_transfer_params":null}`},
	{"vllm logprobs", true, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"q",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"3","tool_calls":[]},` +
		`"logprobs":{"content":[{"token":"3","logprob":-0.01,"bytes":[51],"top_logprobs":[{"token":"3","logprob":-0.01,"bytes":[51]},{"token":"4","logprob":-4.6,"bytes":[52]}]}]},` +
		`"finish_reason":"stop","stop_reason":null}],"usage":{"prompt_tokens":9,"total_tokens":10,"completion_tokens":1}}`},
	{"ollama", true, `{"id":"chatcmpl-527","object":"chat.completion","created":1733012345,"model":"llama3.2","system_fingerprint":"fp_ollama",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"Score: 5\n\nThe summary is \"faithful\"."},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":201,"completion_tokens":14,"total_tokens":215}}`},
	{"llama.cpp", true, `{"choices":[{"finish_reason":"stop","index":0,"message":{"role":"assistant","content":"{\"score\": 2}"}}],` +
		`"created":1733012345,"model":"gpt-3.5-turbo","system_fingerprint":"b4521-6171c9d2","object":"chat.completion",` +
		`"usage":{"completion_tokens":8,"prompt_tokens":180,"total_tokens":188},"id":"chatcmpl-q9X",` +
		`"timings":{"prompt_n":180,"prompt_ms":41.2,"prompt_per_token_ms":0.2288,"prompt_per_second":4368.9,"predicted_n":8,"predicted_ms":96.7,"predicted_per_token_ms":12.08,"predicted_per_second":82.7}}`},
	{"unicode escapes", true, `{"choices":[{"message":{"role":"assistant","content":"caf\u00e9 \u65e5\u672c \ud83d\ude00 \u2028 \/ \\ \b\f\n\r\t \u0000 \u007F"}}]}`},
	{"raw utf-8", true, `{"model":"mödel","choices":[{"message":{"content":"日本語 😀 é \u00e9 ü"}}]}`},
	{"nulls", true, `{"id":null,"object":null,"created":null,"model":null,"choices":[{"index":null,"message":{"role":null,"content":null,"refusal":null,"name":null,"reasoning_content":null,"function_call":null,"tool_calls":null,"tool_call_id":null},"finish_reason":null,"logprobs":{"content":null}}],"usage":{"prompt_tokens":null,"prompt_tokens_details":null,"completion_tokens_details":null},"system_fingerprint":null,"prompt_filter_results":null,"service_tier":null}`},
	{"empty", true, `{}`},
	{"empty lists", true, `{"choices":[],"prompt_filter_results":[],"usage":{"prompt_tokens_details":{},"completion_tokens_details":{}}}`},
	{"refusal", true, `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`},
	{"two choices", true, `{"choices":[{"index":0,"message":{"content":"1"}},{"index":1,"message":{"content":"2"},"finish_reason":"length"}]}`},
	{"unknown nested", true, `{"x":{"a":[1,-2.5e+3,true,false,null,"s\"\u1234",{"b":{}}],"c":[]},"choices":[{"message":{"content":"ok","audio":null,"annotations":[{"type":"url_citation"}]}}]}`},
	{"numbers", true, `{"created":-9223372036854775808,"usage":{"prompt_tokens":9223372036854775807,"completion_tokens":-0}}`},
	{"floats", true, `{"choices":[{"logprobs":{"content":[{"token":"a","logprob":-0},{"token":"b","logprob":1E-400},{"token":"c","logprob":-1.7976931348623157e308},{"token":"d","logprob":12345678901234567890}]}}]}`},
	{"null choices", true, `{"choices":null,"usage":{"prompt_tokens_details":null}}`},
	{"empty strings", true, `{"id":"","choices":[{"message":{"content":"","tool_calls":[ ]},"finish_reason":""}]}`},
	{"escapes only", true, `{"id":"\"","model":"\u00e9","choices":[{"message":{"content":"\n"}}]}`},
	{"long escaped", true, `{"choices":[{"message":{"content":"` + strings.Repeat(`{\"score\": 7} é\u00e9 `, 40) + `"}}]}`},
	{"whitespace", true, " \t\r\n{ \"id\" : \"x\" , \"choices\" : [ { \"message\" : { \"content\" : \"y\" } } ] } \n"},

	// Left to encoding/json.
	{"multi content", false, `{"choices":[{"message":{"role":"assistant","content":[{"type":"text","text":"7"}]}}]}`},
	{"tool calls", false, `{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`},
	{"function call", false, `{"choices":[{"message":{"function_call":{"name":"f","arguments":"{}"}}}]}`},
	{"duplicate key", false, `{"id":"a","id":"b"}`},
	{"duplicate choices", false, `{"choices":[{"message":{"content":"a"}}],"choices":[{"message":{"content":"b"}}]}`},
	{"folded key", false, `{"ID":"a"}`},
	{"folded message key", false, `{"choices":[{"message":{"Content":"a"}}]}`},
	{"multicontent key", false, `{"choices":[{"message":{"multicontent":null}}]}`},
	{"escaped key", false, `{"\u0069d":"a"}`},
	{"non-ascii key", false, `{"ſd":"a"}`},
	{"lone surrogate", false, `{"id":"\ud83d"}`},
	{"low surrogate", false, `{"id":"\ude00x"}`},
	{"bad pair", false, `{"id":"\ud83d\u0041"}`},
	{"invalid utf-8", false, "{\"id\":\"a\xffb\"}"},
	{"invalid utf-8 after escape", false, "{\"id\":\"\\n\xc3\"}"},
	{"surrogate as utf-8", false, "{\"id\":\"\xed\xa0\x80\"}"},
	{"float for int", false, `{"created":1.0}`},
	{"exponent for int", false, `{"usage":{"total_tokens":1e3}}`},
	{"int overflow", false, `{"created":9223372036854775808}`},
	{"float overflow", false, `{"choices":[{"logprobs":{"content":[{"logprob":1e400}]}}]}`},
	{"base64 bytes", false, `{"choices":[{"logprobs":{"content":[{"token":"a","bytes":"YQ=="}]}}]}`},
	{"byte overflow", false, `{"choices":[{"logprobs":{"content":[{"token":"a","bytes":[256]}]}}]}`},
	{"negative byte", false, `{"choices":[{"logprobs":{"content":[{"token":"a","bytes":[-1]}]}}]}`},
	{"message null", false, `{"choices":[{"message":null}]}`},
	{"usage null", false, `{"usage":null}`},
	{"choice null", false, `{"choices":[null]}`},
	{"content filter", false, `{"choices":[{"message":{"content":"a"},"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}]}`},
	{"prompt filter", false, `{"prompt_filter_results":[{"prompt_index":0}]}`},
	{"string for int", false, `{"created":"1"}`},
	{"trailing data", false, `{"id":"a"} x`},
	{"two values", false, `{"id":"a"}{}`},
	{"not an object", false, `[1,2]`},
	{"null reply", false, `null`},
	{"truncated", false, `{"id":"a","choices":[{"message":{"content":"ab`},
	{"trailing comma", false, `{"id":"a",}`},
	{"control char", false, "{\"id\":\"a\tb\"}"},
	{"bad escape", false, `{"id":"\x41"}`},
	{"leading zero", false, `{"created":01}`},
	{"deep", false, `{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`},
	{"empty", false, ``},
}

// TestFastReplyMatchesJSON: on every reply it handles, fastReply's value
// is json.Unmarshal's, and it handles the usual replies of the servers
// prism talks to.
func TestFastReplyMatchesJSON(t *testing.T) {
	for _, c := range replyCases {
		got, ok := fastReply([]byte(c.reply))
		var want goopenai.ChatCompletionResponse
		err := json.Unmarshal([]byte(c.reply), &want)
		if ok != c.fast {
			t.Errorf("%s: handled %v, want %v (json.Unmarshal: %v)", c.name, ok, c.fast, err)
		}
		if !ok {
			continue
		}
		if err != nil {
			t.Errorf("%s: handled a reply json.Unmarshal refuses: %v", c.name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", c.name, got, want)
		}
	}
}

// TestFastReplyStringsAreCopies: the decoded strings do not share the
// reply's bytes (the buffer is reused once the reply is decoded).
func TestFastReplyStringsAreCopies(t *testing.T) {
	data := []byte(replyCases[0].reply)
	r, ok := fastReply(data)
	if !ok {
		t.Fatal("not handled")
	}
	for i := range data {
		data[i] = 'x'
	}
	if r.ID != "chatcmpl-1" || r.Choices[0].Message.Content != `{"score": 7}` {
		t.Fatalf("strings changed with the buffer: %q %q", r.ID, r.Choices[0].Message.Content)
	}
}

// FuzzFastReply: whatever fastReply handles, json.Unmarshal decodes
// without error to the same value.
func FuzzFastReply(f *testing.F) {
	for _, c := range replyCases {
		f.Add([]byte(c.reply))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := fastReply(data)
		if !ok {
			return
		}
		var want goopenai.ChatCompletionResponse
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("handled a reply json.Unmarshal refuses (%v): %q", err, data)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", data, got, want)
		}
	})
}

// The fast path's field lists are go-openai's: a field added by a newer
// go-openai would otherwise be skipped as unknown by fastReply and filled
// by json.Unmarshal.
func TestFastReplyFieldsAreGoOpenAIs(t *testing.T) {
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
			t.Errorf("%T: go-openai's JSON fields %q, fastReply's %q", c.typ, got, c.list)
		}
	}
}
