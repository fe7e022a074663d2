package openai

import (
	"context"
	"net/http"
	"testing"

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
