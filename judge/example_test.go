package judge_test

import (
	"fmt"
	"math"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

func ExampleParseScore() {
	sc := banks.Scale{Min: 1, Max: 10}
	for _, reply := range []string{
		"```json\n{\"score\": 7}\n```",
		"Score: 8",
		`{"score": 11}`,
		"Clear and faithful, I'd give it an 8.", // prose: no score is read from it
		"I cannot rate this on a scale of 1 to 10.",
	} {
		v, err := judge.ParseScore(reply, sc)
		if err != nil {
			fmt.Println(judge.KindOf(err))
			continue
		}
		fmt.Println(v)
	}
	// Output:
	// 7
	// 8
	// out_of_range
	// unparseable
	// refusal
}

func ExampleReadExpected() {
	// The reply {"score": 7} with alternatives at the score token:
	// P(7) = .5 + .1 (" 7" and "7" merged), P(8) = .4.
	lp := func(p float64) float64 { return math.Log(p) }
	toks := []judge.TokenLogprob{
		{Token: `{"score":`, Top: []judge.TopLogprob{{Token: `{"score":`}}},
		{Token: " 7", Logprob: lp(.5), Top: []judge.TopLogprob{{Token: " 7", Logprob: lp(.5)}, {Token: " 8", Logprob: lp(.4)}, {Token: "7", Logprob: lp(.1)}}},
		{Token: "}", Top: []judge.TopLogprob{{Token: "}"}}},
	}
	ex, err := judge.ReadExpected(toks, banks.Scale{Min: 1, Max: 10})
	fmt.Printf("%.2f mass %.2f %v\n", ex.Score, ex.Mass, err)
	// Output: 7.40 mass 1.00 <nil>
}

func ExampleCyclicOrders() {
	for _, o := range judge.CyclicOrders(4, 2) {
		fmt.Println(o)
	}
	// Output:
	// [0 1 2 3]
	// [2 3 0 1]
}
