package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// ambiguousByTokens is Ambiguous as json.Decoder's tokens give it, the
// oracle of the byte walk (ambiguousValid): the same verdict and message
// on every JSON value.
func ambiguousByTokens(data []byte) string {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	why, _ := tokValue(d, replyShape, "")
	return why
}

func tokValue(d *json.Decoder, shape envShape, path string) (string, error) {
	tok, err := d.Token()
	if err != nil {
		return "", err
	}
	switch tok {
	case json.Delim('{'):
		return tokObject(d, shape, path)
	case json.Delim('['):
		n := 0
		for d.More() {
			if why, err := tokValue(d, shape, fmt.Sprintf("%s[%d]", path, n)); why != "" || err != nil {
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

func tokObject(d *json.Decoder, shape envShape, path string) (string, error) {
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
		f := strings.ToLower(strings.ToUpper(key))
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
		if why, err := tokValue(d, sub, sp); why != "" || err != nil {
			return why, err
		}
	}
	_, err := d.Token()
	return "", err
}

// ambiguousSeeds are replies the byte walk must judge as the decoder
// does: plain, with logprobs, every kind of duplicate, escapes, folds.
var ambiguousSeeds = []string{
	envelope(choiceJSON(`"content":"{\"score\": 3}"`, ""), plainUsage),
	envelope(choiceJSON(`"content":"{\"score\": 3}","content":"{\"score\": 9}"`, ""), plainUsage),
	envelope(choiceJSON(`"content":"{\"score\": 3}","Content":"9"`, ""), plainUsage),
	envelope(choiceJSON(`"content":"{\"score\": 3}","\u0063ontent":"9"`, ""), plainUsage),
	envelope(choiceJSON(`"content":"{\"score\": 3}","ROLE":"user"`, ""), plainUsage),
	`{"usage":{"prompt_tokens":1},"usage":{}}`,
	`{"choices":[{"index":0},{"index":1,"logprobs":null,"LOGPROBS":{}}]}`,
	`{"choices":[{"logprobs":{"content":[{"token":"a","top_logprobs":[{"token":"b","\u0074oken":"c"}]}]}}]}`,
	`{"choices":[{"logprobs":{"content":[{"token":"a","top_logprobs":[{"bytes":[1,2],"top_logprobs":1,"top_logprobs":2}]}]}}]}`,
	`{"x":{"a":1,"a":2},"y":[{"id":1,"id":2}],"model":"m \" \\ }","model":"n"}`,
	`{"usage":{"prompt_tokens_details":{"cached_tokens":1,"cached_tokens":2}}}`,
	"{\"ſystem_fingerprint\":1,\"system_fingerprint\":2}",
	"{\"id\":1,\"\u212aey\":2,\"model\":[],\"MODEL\":3}",
	` [ {"id" : 1 , "ID" : 2 } ] `,
	`[[{"choices":[[{"message":{"name":1,"Name":2}}]]}]]`,
	`{"":1,"":2,"id":{"":{}},"ID":1}`,
	`"just a string"`, `12.5e3`, `null`, `[]`, `{}`,
}

// FuzzAmbiguousIsTheDecoders: on every JSON value the byte walk gives
// the decoder's verdict, message for message; on anything else Ambiguous
// says nothing and does not panic.
func FuzzAmbiguousIsTheDecoders(f *testing.F) {
	for _, s := range ambiguousSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := Ambiguous(data)
		if !json.Valid(data) {
			if got != "" {
				t.Fatalf("Ambiguous(%q) = %q on invalid JSON", data, got)
			}
			return
		}
		if want := ambiguousByTokens(data); got != want {
			t.Fatalf("Ambiguous(%q) = %q, the decoder's verdict %q", data, got, want)
		}
	})
}

// TestAmbiguousSeedsJudged: the seeds cover both verdicts, so the fuzz
// test's comparison is not of "" with "" only.
func TestAmbiguousSeedsJudged(t *testing.T) {
	var some, none int
	for _, s := range ambiguousSeeds {
		if Ambiguous([]byte(s)) != "" {
			some++
		} else {
			none++
		}
	}
	if some < 12 || none < 6 {
		t.Errorf("%d seeds ambiguous, %d not; want at least 12 and 6", some, none)
	}
}

// BenchmarkAmbiguous: the check every reply of a run gets, on an OpenAI
// reply with logprobs, by the byte walk and by the decoder's tokens.
func BenchmarkAmbiguous(b *testing.B) {
	reply := []byte(`{"id":"chatcmpl-x","object":"chat.completion","created":1733012345,"model":"gpt-4o-mini",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"{\"score\":7}","refusal":null},"logprobs":{"content":[` +
		`{"token":"{\"score\":","logprob":-1.9e-07,"bytes":[123,34],"top_logprobs":[{"token":"{\"score\":","logprob":-1.9e-07,"bytes":[123,34]}]},` +
		`{"token":"7","logprob":-0.6931472,"bytes":[55],"top_logprobs":[{"token":"7","logprob":-0.6931472,"bytes":[55]},{"token":"8","logprob":-0.6931472,"bytes":[56]}]},` +
		`{"token":"}","logprob":0.0,"bytes":[125],"top_logprobs":[]}],"refusal":null},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":312,"completion_tokens":6,"total_tokens":318,"prompt_tokens_details":{"cached_tokens":256,"audio_tokens":0},` +
		`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},` +
		`"service_tier":"default","system_fingerprint":"fp_0aa8d3e20b"}`)
	for _, c := range []struct {
		name string
		fn   func([]byte) string
	}{{"walk", ambiguousValid}, {"tokens", ambiguousByTokens}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(reply)))
			for b.Loop() {
				if c.fn(reply) != "" {
					b.Fatal("ambiguous")
				}
			}
		})
	}
}
