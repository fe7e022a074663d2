package engine

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

// A batch output line is read as strictly as a live reply (issue 42): an
// ambiguous envelope or impossible logprobs are counted failures.
func TestParseBatchOutputStrict(t *testing.T) {
	line := func(body string) string {
		return `{"id":"b","custom_id":"k","response":{"status_code":200,"request_id":"r","body":` + body + `},"error":null}` + "\n"
	}
	msg := func(content string) string { return `{"message":{"role":"assistant",` + content + `}}` }
	three, nine := `"content":"{\"score\": 3}"`, `"content":"{\"score\": 9}"`
	usage := `"usage":{"prompt_tokens":60,"completion_tokens":5}`
	lps := func(lp, top string) string {
		return `{"message":{"role":"assistant","content":"6"},"logprobs":{"content":[{"token":"6","logprob":` + lp +
			`,"top_logprobs":[` + top + `]}]}}`
	}
	cases := []struct {
		name, body string
		mode       judge.Mode
		kind       judge.ErrorKind
		score      float64
	}{
		{"plain", `{"choices":[` + msg(three) + `],` + usage + `}`, judge.ModeInteger, "", 3},
		{"two content keys", `{"choices":[` + msg(three+","+nine) + `],` + usage + `}`, judge.ModeInteger, judge.KindAmbiguous, 0},
		{"two choices", `{"choices":[` + msg(three) + `,` + msg(nine) + `],` + usage + `}`, judge.ModeInteger, judge.KindAmbiguous, 0},
		{"6 at +2e-7", `{"choices":[` + lps("2e-7", `{"token":"6","logprob":2e-7},{"token":"5","logprob":-15.2}`) + `]}`, judge.ModeExpected, "", 6},
		{"Σp 1.81", `{"choices":[` + lps("-0.1", `{"token":"6","logprob":-0.1},{"token":"7","logprob":-0.1}`) + `]}`, judge.ModeExpected, judge.KindBadMass, 0},
	}
	for _, c := range cases {
		sc := func(string) (banks.Scale, judge.Mode, error) { return banks.Scale{Min: 1, Max: 10}, c.mode, nil }
		outs, err := ParseBatchOutput(bytes.NewReader([]byte(line(c.body))), "out.jsonl", sc)
		if err != nil || len(outs) != 1 {
			t.Fatalf("%s: %d outcomes, %v", c.name, len(outs), err)
		}
		o := outs[0]
		if judge.ErrorKind(o.ErrKind) != c.kind {
			t.Errorf("%s: kind %q (%s), score %v; want %q", c.name, o.ErrKind, o.Err, o.Score, c.kind)
			continue
		}
		if c.kind == "" && math.Abs(o.Score-c.score) > 1e-5 {
			t.Errorf("%s: score %v, want %v", c.name, o.Score, c.score)
		}
		if c.kind == judge.KindAmbiguous && !strings.Contains(o.Err, "ambiguous") {
			t.Errorf("%s: reason %q", c.name, o.Err)
		}
	}
}

// A batch line's implausible token counts are replaced and noted, never
// stored as they are: a negative count would make a negative cost, and
// int64's largest would overflow the sums.
func TestBatchOutputUsageChecked(t *testing.T) {
	body := func(usage string) string {
		return `{"id":"b","custom_id":"k","response":{"status_code":200,"request_id":"r","body":{"choices":[{"message":{"role":"assistant","content":"{\"score\": 3}"}}],"usage":` +
			usage + `}},"error":null}` + "\n"
	}
	sc := func(string) (banks.Scale, judge.Mode, error) {
		return banks.Scale{Min: 1, Max: 10}, judge.ModeInteger, nil
	}
	for _, c := range []struct {
		usage         string
		prompt, compl int
		noted         bool
	}{
		{`{"prompt_tokens":60,"completion_tokens":5}`, 60, 5, false},
		{`{"prompt_tokens":-5000,"completion_tokens":5}`, 0, 5, true},
		{`{"prompt_tokens":60,"completion_tokens":9223372036854775807}`, 60, judge.EstimateCompletionTokens(`{"score": 3}`), true},
	} {
		outs, err := ParseBatchOutput(bytes.NewReader([]byte(body(c.usage))), "out.jsonl", sc)
		if err != nil || len(outs) != 1 {
			t.Fatalf("%s: %d outcomes, %v", c.usage, len(outs), err)
		}
		o := outs[0]
		if o.PromptTokens != c.prompt || o.CompletionTokens != c.compl || (o.UsageNote != "") != c.noted || o.Score != 3 {
			t.Errorf("%s: tokens %d/%d, note %q, score %v", c.usage, o.PromptTokens, o.CompletionTokens, o.UsageNote, o.Score)
		}
	}
}
