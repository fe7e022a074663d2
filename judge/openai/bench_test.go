package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/prism-eval/prism/judge"
)

var sinkResult judge.Result

// BenchmarkOpenAIClientLocal is the client's own cost per call against an
// in-process server that answers at once: request building, JSON, HTTP
// over loopback, the retry layer and parsing.
func BenchmarkOpenAIClientLocal(b *testing.B) {
	for _, mode := range []judge.Mode{judge.ModeInteger, judge.ModeExpected} {
		b.Run(string(mode), func(b *testing.B) {
			body := completionJSON(`{"score": 7}`, []lp{
				{tok: `{"score": `, p: 1, top: map[string]float64{`{"score": `: 1}},
				{tok: "7", p: .6, top: map[string]float64{"7": .6, "8": .3, "6": .1}},
				{tok: "}", p: 1, top: map[string]float64{"}": 1}},
			}, usage{100, 0, 5}, "", "")
			f := newFake(b, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write(body)
			})
			c := newClient(b, f.URL, &recorder{}, func(c *judge.Config) { c.Mode = mode; c.ResponseFormat = judge.FormatNone })
			req := request()
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := c.Score(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				sinkResult = r
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}

var sinkReply goopenai.ChatCompletionResponse

// BenchmarkReplyDecode: one reply decoded by fastReply and by
// json.Unmarshal (with go-openai's types), for the benchmark server's
// reply and for one with logprobs.
func BenchmarkReplyDecode(b *testing.B) {
	for _, c := range []struct{ name, reply string }{
		{"openaitest", replyCases[0].reply},
		{"logprobs", replyCases[2].reply},
		// A judge that explains its score: six lines, a \n in each.
		{"explained", `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"` +
			strings.Repeat(`The summary is fluent and mostly consistent with the source, but it omits one key detail.\n`, 6) +
			`{\"score\": 7}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":120,"total_tokens":220}}`},
	} {
		data := []byte(c.reply)
		b.Run(c.name+"/fast", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, ok := fastReply(data)
				if !ok {
					b.Fatal("not handled")
				}
				sinkReply = r
			}
		})
		b.Run(c.name+"/json", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var r goopenai.ChatCompletionResponse
				if err := json.Unmarshal(data, &r); err != nil {
					b.Fatal(err)
				}
				sinkReply = r
			}
		})
	}
}

var sinkBody []byte

// BenchmarkChatBody: one chat request body (a system message and a
// 2.6 KB news-summary prompt with a few quotes, newlines and non-ASCII
// characters, as SummEval's) by the hand-written encoder and by json.Marshal.
func BenchmarkChatBody(b *testing.B) {
	prompt := strings.Repeat("The central bank said on Tuesday that prices rose 3% in the first quarter, "+
		"more than the 2.5% analysts had expected; its governor called the rise \"temporary\" — "+
		"a view not all economists share.\n", 13) +
		`Respond with only a JSON object: {"score": <int 1–10>}.`
	cr := goopenai.ChatCompletionRequest{Model: "m", MaxTokens: 20, Messages: []goopenai.ChatCompletionMessage{
		{Role: "system", Content: "You are evaluating machine-generated summaries of news articles."},
		{Role: "user", Content: prompt}}}
	b.Run("encoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			body, ok := encodeChat(&cr)
			if !ok {
				b.Fatal("declined")
			}
			sinkBody = body
		}
	})
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			body, err := marshalChatJSON(&cr)
			if err != nil {
				b.Fatal(err)
			}
			sinkBody = body
		}
	})
}
