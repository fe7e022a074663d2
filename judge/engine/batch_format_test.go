package engine

import (
	"bytes"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

// TestBatchInputLineIsEncoders: an OpenAI or vLLM line built by hand is
// the line encoding/json writes of the BatchInput, byte for byte, for
// ids and texts that need escaping (HTML characters left as they are),
// under every body option ChatBody writes.
func TestBatchInputLineIsEncoders(t *testing.T) {
	texts := []string{"plain", `a "quoted" <b>&amp;</b> text`, "lines\nand\ttabs\u2028 and ünïcode 日本", "\x01 control \\ backslash"}
	temp, seed := 0.7, 3
	cfgs := []judge.Config{{Model: "m"}, {Model: "gpt-<4>&o", MaxTokens: 5, Temperature: &temp, Seed: &seed, Mode: judge.ModeExpected, TopLogprobs: 5,
		ResponseFormat: judge.FormatJSONSchema}, {Model: "m", ResponseFormat: judge.FormatJSONObject}}
	for _, id := range []string{"k", "0123abcd:1", `id "<&>" ü`} {
		for _, text := range texts {
			for _, cfg := range cfgs {
				req := banks.Request{Messages: []banks.Message{{Role: "system", Content: "Rate " + text}, {Role: "user", Content: text}},
					Scale: banks.Scale{Min: 1, Max: 10}}
				body, err := ChatBody(cfg, req, 1)
				if err != nil {
					t.Fatal(err)
				}
				got, err := batchInputLine(id, body)
				if err != nil {
					t.Fatal(err)
				}
				want, err := marshalLine(BatchInput{CustomID: id, Method: "POST", URL: BatchURL, Body: body})
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("by hand:\n%s\nencoding/json:\n%s", got, want)
				}
			}
		}
	}
}
