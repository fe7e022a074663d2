package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/prism-eval/prism/banks"
)

// encodeCaseStrings are message texts that exercise every escaping rule
// of encoding/json (encode.go's appendString with HTML escaping).
var encodeCaseStrings = []string{
	"",
	"plain text, rate it 1-5.",
	`"quoted" \back\slash\`,
	"<b>bold</b> & <script>alert('x')</script>",
	"\b\f\n\r\t\v\x00\x01\x1f\x7f",
	"é 日本語 🎉 Ω",
	"\u2028line\u2029para\u2027\u202a",
	"\xff\xfe bad \xc3 cut \xe2\x80 three-cut \xed\xa0\x80 surrogate \xf4\x90\x80\x80 too big",
	"\uFFFD the replacement char itself",
	"ends in a cut rune \xe6\x97",
	strings.Repeat("A long prompt with <tags> & \"quotes\" and é. ", 2000),
}

// encodeCaseRequests are requests with every optional field set and unset.
func encodeCaseRequests(t *testing.T) []goopenai.ChatCompletionRequest {
	seed, negSeed := 41, -7
	var out []goopenai.ChatCompletionRequest
	msgs := func(s string) []goopenai.ChatCompletionMessage {
		return []goopenai.ChatCompletionMessage{{Role: "system", Content: "You are a judge."}, {Role: "user", Content: s}, {Role: "assistant", Content: ""}}
	}
	for _, s := range encodeCaseStrings {
		out = append(out, goopenai.ChatCompletionRequest{Model: s, Messages: msgs(s)})
	}
	schema := schemaFormat(request())
	batch := request()
	batch.BatchIDs, batch.BatchTexts = []string{"c<2>", "c&0"}, []string{"two", "zero"}
	saja := rubricRequest(t, sajaRubric, 0)
	for _, mod := range []func(*goopenai.ChatCompletionRequest){
		func(c *goopenai.ChatCompletionRequest) { c.Messages = nil },
		func(c *goopenai.ChatCompletionRequest) { c.Messages = []goopenai.ChatCompletionMessage{} },
		func(c *goopenai.ChatCompletionRequest) { c.MaxTokens = 20 },
		func(c *goopenai.ChatCompletionRequest) { c.MaxTokens = -3 },
		func(c *goopenai.ChatCompletionRequest) { c.MaxCompletionTokens = math.MaxInt },
		func(c *goopenai.ChatCompletionRequest) { c.Temperature, c.TopP = 0.7, 1 },
		func(c *goopenai.ChatCompletionRequest) { c.Temperature, c.TopP = float32(math.Copysign(0, -1)), -0.25 },
		func(c *goopenai.ChatCompletionRequest) { c.Temperature, c.TopP = 1e-6, 9.99999e-7 },
		func(c *goopenai.ChatCompletionRequest) { c.Temperature, c.TopP = 1e21, 9.9999e20 },
		func(c *goopenai.ChatCompletionRequest) { c.Temperature, c.TopP = 1e-7, -3.4e38 },
		func(c *goopenai.ChatCompletionRequest) {
			c.Temperature, c.TopP = math.SmallestNonzeroFloat32, math.MaxFloat32
		},
		func(c *goopenai.ChatCompletionRequest) { c.Temperature, c.TopP = float32(0.1), float32(1.0/3) },
		func(c *goopenai.ChatCompletionRequest) { c.Stream = true },
		func(c *goopenai.ChatCompletionRequest) { c.Seed = &seed },
		func(c *goopenai.ChatCompletionRequest) { c.Seed = &negSeed },
		func(c *goopenai.ChatCompletionRequest) { c.LogProbs, c.TopLogProbs = true, 20 },
		func(c *goopenai.ChatCompletionRequest) { c.TopLogProbs = 5 },
		func(c *goopenai.ChatCompletionRequest) {
			c.ResponseFormat = &goopenai.ChatCompletionResponseFormat{Type: goopenai.ChatCompletionResponseFormatTypeJSONObject}
		},
		func(c *goopenai.ChatCompletionRequest) { c.ResponseFormat = &goopenai.ChatCompletionResponseFormat{} },
		func(c *goopenai.ChatCompletionRequest) { c.ResponseFormat = schema },
		func(c *goopenai.ChatCompletionRequest) { c.ResponseFormat = schemaFormat(batch) },
		func(c *goopenai.ChatCompletionRequest) { c.ResponseFormat = schemaFormat(saja) },
		func(c *goopenai.ChatCompletionRequest) {
			c.ResponseFormat = &goopenai.ChatCompletionResponseFormat{Type: "json_schema", JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{
				Name: "n<&>", Description: "d\u2028", Schema: json.RawMessage(` { "a" : "<&>" , "b":[1, 2] } `)}}
		},
		func(c *goopenai.ChatCompletionRequest) {
			c.MaxTokens, c.MaxCompletionTokens, c.Temperature, c.TopP, c.Stream = 1, 2, 0.5, 0.9, true
			c.ResponseFormat, c.Seed, c.LogProbs, c.TopLogProbs = schema, &seed, true, 3
		},
	} {
		c := goopenai.ChatCompletionRequest{Model: "test-model", Messages: msgs(encodeCaseStrings[3])}
		mod(&c)
		out = append(out, c)
	}
	return out
}

// TestChatBodyEncoderMatchesJSON: the hand-written encoder writes
// json.Marshal's bytes, over every escaping rule and every field set and
// unset, and marshalChat (the encoder) gives what marshalChatJSON
// (encoding/json) gives.
func TestChatBodyEncoderMatchesJSON(t *testing.T) {
	for i, cr := range encodeCaseRequests(t) {
		want, err := marshalChatJSON(&cr)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		got, ok := encodeChat(&cr)
		if !ok {
			t.Fatalf("case %d: the encoder declined a request json.Marshal encodes", i)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("case %d:\n got %.300q\nwant %.300q", i, got, want)
		}
		if got, err := marshalChat(cr); err != nil || !bytes.Equal(got, want) {
			t.Errorf("case %d: marshalChat differs (%v)", i, err)
		}
	}
}

// TestChatBodyEncoderDeclines: what json.Marshal refuses is left to it,
// and marshalChat returns its error.
func TestChatBodyEncoderDeclines(t *testing.T) {
	bad := &goopenai.ChatCompletionResponseFormat{Type: "json_schema", JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{
		Name: "n", Schema: json.RawMessage(`{"a":`)}}
	for i, mod := range []func(*goopenai.ChatCompletionRequest){
		func(c *goopenai.ChatCompletionRequest) { c.Temperature = float32(math.NaN()) },
		func(c *goopenai.ChatCompletionRequest) { c.TopP = float32(math.Inf(1)) },
		func(c *goopenai.ChatCompletionRequest) { c.Temperature = float32(math.Inf(-1)) },
		func(c *goopenai.ChatCompletionRequest) { c.ResponseFormat = bad },
	} {
		cr := goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "x"}}}
		mod(&cr)
		if _, ok := encodeChat(&cr); ok {
			t.Errorf("case %d: the encoder wrote a request json.Marshal refuses", i)
		}
		_, want := marshalChatJSON(&cr)
		_, got := marshalChat(cr)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("case %d: error %v, want json.Marshal's %v", i, got, want)
		}
	}
}

// TestChatBodyEncoderReusesBuffers: bodies stay intact while later ones
// are encoded in the pooled scratch buffers.
func TestChatBodyEncoderReusesBuffers(t *testing.T) {
	var bodies [][]byte
	var wants [][]byte
	for i, s := range encodeCaseStrings {
		cr := goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: s}}}
		b, ok := encodeChat(&cr)
		if !ok {
			t.Fatalf("case %d declined", i)
		}
		w, _ := marshalChatJSON(&cr)
		bodies, wants = append(bodies, b), append(wants, w)
	}
	for i := range bodies {
		if !bytes.Equal(bodies[i], wants[i]) {
			t.Errorf("body %d changed after later encodings", i)
		}
	}
}

// FuzzChatBody: for any message texts, model and parameters the encoder
// writes json.Marshal's bytes, or declines exactly what json.Marshal
// refuses.
func FuzzChatBody(f *testing.F) {
	for _, s := range encodeCaseStrings[:len(encodeCaseStrings)-1] {
		f.Add("m", s, "user", 0, float32(0), float32(0), false, 0, uint8(0))
	}
	f.Add("gpt-5", "<&>\u2028\xff", "", 20, float32(0.5), float32(1e-7), true, 41, uint8(7))
	f.Add("", "", "system", -1, float32(math.NaN()), float32(3e21), false, -2, uint8(255))
	f.Fuzz(func(t *testing.T, model, content, role string, maxTok int, temp, topP float32, logprobs bool, seed int, flags uint8) {
		cr := goopenai.ChatCompletionRequest{Model: model, MaxTokens: maxTok, Temperature: temp, TopP: topP,
			LogProbs: logprobs, TopLogProbs: seed % 21, Stream: flags&1 != 0,
			Messages: []goopenai.ChatCompletionMessage{{Role: "system", Content: role}, {Role: role, Content: content}}}
		if flags&2 != 0 {
			cr.Seed = &seed
		}
		if flags&4 != 0 {
			cr.MaxCompletionTokens = maxTok / 3
		}
		switch flags >> 3 & 3 {
		case 1:
			cr.ResponseFormat = &goopenai.ChatCompletionResponseFormat{Type: goopenai.ChatCompletionResponseFormatType(content)}
		case 2:
			cr.ResponseFormat = schemaFormat(banks.Request{Scale: banks.Scale{Min: maxTok, Max: seed}})
		case 3:
			cr.ResponseFormat = &goopenai.ChatCompletionResponseFormat{Type: "json_schema", JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{
				Name: role, Description: content, Schema: json.RawMessage(content), Strict: logprobs}}
		}
		if flags&32 != 0 {
			cr.Messages = nil
		}
		want, werr := marshalChatJSON(&cr)
		got, ok := encodeChat(&cr)
		switch {
		case werr != nil && ok:
			t.Fatalf("json.Marshal refused (%v) what the encoder wrote: %q", werr, got)
		case werr == nil && !ok:
			t.Fatalf("the encoder declined what json.Marshal writes: %q", want)
		case ok && !bytes.Equal(got, want):
			t.Fatalf("\n got %q\nwant %q", got, want)
		}
		body, err := marshalChat(cr)
		if !bytes.Equal(body, want) || (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Fatalf("marshalChat: %q, %v; want %q, %v", body, err, want, werr)
		}
		var ue *json.UnsupportedValueError
		if werr != nil && !errors.As(werr, &ue) && cr.ResponseFormat == nil {
			t.Fatalf("unexpected error %v", werr)
		}
	})
}
